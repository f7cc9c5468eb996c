import { describe, expect, it } from 'vitest';
import { withRetry } from './retry';
import { classifyS3Error } from './s3-errors';
import { StorageError } from './storage-errors';

/** An error shaped like the AWS SDK's service exceptions. */
function serviceError(name: string, status: number): Error {
  return Object.assign(new Error(`${name} happened`), {
    name,
    $metadata: { httpStatusCode: status },
  });
}

function network(code: string): Error {
  return Object.assign(new Error(`connect ${code}`), { code });
}

describe('classifyS3Error', () => {
  it.each([
    [serviceError('NoSuchKey', 404), 'STORAGE_NOT_FOUND', false],
    [serviceError('NotFound', 404), 'STORAGE_NOT_FOUND', false],
    [serviceError('NoSuchBucket', 404), 'STORAGE_NO_BUCKET', false],
    [serviceError('NoSuchUpload', 404), 'STORAGE_FAILED', false],
    [serviceError('InvalidRange', 416), 'STORAGE_BAD_RANGE', false],
    [serviceError('AccessDenied', 403), 'STORAGE_DENIED', false],
    [serviceError('SignatureDoesNotMatch', 403), 'STORAGE_DENIED', false],
    [serviceError('SlowDown', 503), 'STORAGE_UNAVAILABLE', true],
    [serviceError('InternalError', 500), 'STORAGE_UNAVAILABLE', true],
    [serviceError('Unknown', 502), 'STORAGE_UNAVAILABLE', true],
    [serviceError('TooManyRequests', 429), 'STORAGE_UNAVAILABLE', true],
    [serviceError('RequestTimeout', 400), 'STORAGE_UNAVAILABLE', true],
    [serviceError('MalformedXML', 400), 'STORAGE_FAILED', false],
    [network('ECONNRESET'), 'STORAGE_UNAVAILABLE', true],
    [Object.assign(new Error('wrapped'), { cause: network('EPIPE') }), 'STORAGE_UNAVAILABLE', true],
    [new Error('odd'), 'STORAGE_FAILED', false],
  ] as const)('%s → %s (retry: %s)', (err, code, retryable) => {
    const c = classifyS3Error(err, 'read k');
    expect(c.error.code).toBe(code);
    expect(c.retryable).toBe(retryable);
    expect(c.error.message.startsWith('read k: ')).toBe(true);
    expect(c.error.cause).toBe(err);
  });

  it('passes StorageErrors through unretried', () => {
    const own = new StorageError('STORAGE_BAD_RANGE', 'short');
    expect(classifyS3Error(own, 'x')).toEqual({ error: own, retryable: false });
  });
});

describe('withRetry', () => {
  const policy = { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 2 };
  const classify = (err: unknown) => classifyS3Error(err, 'op');

  it('retries retryable failures until one succeeds', async () => {
    let calls = 0;
    const result = await withRetry(policy, classify, async () => {
      if (++calls < 3) throw serviceError('SlowDown', 503);
      return 'ok';
    });
    expect(result).toBe('ok');
    expect(calls).toBe(3);
  });

  it('stops at the first failure that is not retryable', async () => {
    let calls = 0;
    const run = withRetry(policy, classify, async () => {
      calls++;
      throw serviceError('AccessDenied', 403);
    });
    await expect(run).rejects.toMatchObject({ code: 'STORAGE_DENIED' });
    expect(calls).toBe(1);
  });

  it('stops after maxAttempts and says so', async () => {
    let calls = 0;
    const run = withRetry(policy, classify, async () => {
      calls++;
      throw network('ECONNREFUSED');
    });
    await expect(run).rejects.toThrow(/after 4 attempts/);
    expect(calls).toBe(4);
  });
});
