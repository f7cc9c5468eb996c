import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openObjectStore, StorageError, type ObjectStore, type S3StoreOptions } from './index';
import { startTestS3Server, type LoggedRequest, type TestS3Server } from '@crawler/testing';

let server: TestS3Server;
let files = '';
const BIG_BYTES = 20 * 1024 * 1024 + 12_345;

beforeAll(async () => {
  server = await startTestS3Server();
  files = await mkdtemp(join(tmpdir(), 'storage-s3-'));
  await writeFile(join(files, 'small'), randomBytes(3000));
  await writeFile(join(files, 'big'), randomBytes(BIG_BYTES));
});
afterAll(async () => {
  await server.close();
  await rm(files, { recursive: true, force: true });
});
afterEach(() => {
  server.faults.length = 0;
});

function s3(extra: Partial<S3StoreOptions> = {}): ObjectStore {
  return openObjectStore({
    kind: 's3',
    endpoint: server.endpoint,
    bucket: server.bucket,
    accessKeyId: server.accessKeyId,
    secretAccessKey: server.secretAccessKey,
    forcePathStyle: true,
    retryBaseDelayMs: 1,
    ...extra,
  });
}

/** Requests logged while `run` ran. */
async function requestsDuring(run: () => Promise<unknown>): Promise<LoggedRequest[]> {
  const from = server.requests.length;
  await run();
  return server.requests.slice(from);
}

async function failure(promise: Promise<unknown>): Promise<StorageError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof StorageError) return err;
    throw err;
  }
  throw new Error('expected a StorageError, got success');
}

/** `METHOD /path?query` without the SDK's `x-id` marker and with upload ids elided. */
function describeRequest(r: LoggedRequest): string {
  const url = new URL(r.url, 'http://test');
  url.searchParams.delete('x-id');
  if (url.searchParams.has('uploadId')) url.searchParams.set('uploadId', '…');
  const query = [...url.searchParams].map(([k, v]) => (v === '' ? k : `${k}=${v}`)).join('&');
  return `${r.method} ${decodeURIComponent(url.pathname)}${query ? `?${query}` : ''}`;
}

describe('S3 store: requests', () => {
  it('sends a small file in one PutObject with a Content-MD5', async () => {
    const log = await requestsDuring(() => s3().putFile('req/small', join(files, 'small')));
    expect(log.map(describeRequest)).toEqual([`PUT /${server.bucket}/req/small`]);
    expect(log[0]?.headers['content-md5']).toMatch(/^[A-Za-z0-9+/]{22}==$/);
  });

  it('sends a 20 MB file as a multipart upload of 8 MiB parts', async () => {
    const store = s3();
    const log = await requestsDuring(() => store.putFile('req/big', join(files, 'big')));
    const lines = log.map(describeRequest);
    expect(lines[0]).toBe(`POST /${server.bucket}/req/big?uploads`);
    expect(lines.slice(1, 4).sort()).toEqual(
      [1, 2, 3].map((n) => `PUT /${server.bucket}/req/big?partNumber=${n}&uploadId=…`),
    );
    expect(lines[4]).toBe(`POST /${server.bucket}/req/big?uploadId=…`);
    expect(lines).toHaveLength(5);
    const sizes = log
      .slice(1, 4)
      .map((r) => Number(r.headers['content-length']))
      .sort((a, b) => a - b);
    expect(sizes).toEqual([4 * 1024 * 1024 + 12_345, 8 * 1024 * 1024, 8 * 1024 * 1024]);
    expect(log.slice(1, 4).every((r) => typeof r.headers['content-md5'] === 'string')).toBe(true);
    expect(await store.exists('req/big')).toBe(true);
  });

  it('pages ListObjectsV2 with continuation tokens', async () => {
    const store = s3({ listPageSize: 2 });
    for (const n of [1, 2, 3, 4, 5]) await store.putFile(`pages/${n}`, join(files, 'small'));
    const keys: string[] = [];
    const log = await requestsDuring(async () => {
      for await (const e of store.list('pages/')) keys.push(e.key);
    });
    expect(keys).toEqual(['pages/1', 'pages/2', 'pages/3', 'pages/4', 'pages/5']);
    expect(log).toHaveLength(3);
    expect(log[1]?.url).toContain('continuation-token=');
  });
});

describe('S3 store: retries and failures', () => {
  it('retries 5xx and throttling, then succeeds', async () => {
    const store = s3();
    await store.putFile('retry/obj', join(files, 'small'));
    server.faults.push(
      { method: 'GET', urlIncludes: '/retry/obj', status: 503, code: 'SlowDown', times: 2 },
      { method: 'HEAD', status: 500, code: 'InternalError', times: 1 },
      { method: 'GET', urlIncludes: 'list-type=2', status: 429, code: 'TooManyRequests', times: 1 },
      { method: 'PUT', status: 503, code: 'ServiceUnavailable', times: 1 },
    );
    const log = await requestsDuring(async () => {
      expect((await store.readRange('retry/obj', 0, 10)).byteLength).toBe(10);
      expect(await store.exists('retry/obj')).toBe(true);
      const listed: string[] = [];
      for await (const e of store.list('retry/')) listed.push(e.key);
      expect(listed).toEqual(['retry/obj']);
      await store.putFile('retry/second', join(files, 'small'));
    });
    expect(log.map((r) => `${r.method} ${r.answeredBy}`)).toEqual([
      'GET fault',
      'GET fault',
      'GET s3rver',
      'HEAD fault',
      'HEAD s3rver',
      'GET fault',
      'GET s3rver',
      'PUT fault',
      'PUT s3rver',
    ]);
  });

  it('gives up after maxAttempts with STORAGE_UNAVAILABLE', async () => {
    const store = s3({ maxAttempts: 3 });
    await store.putFile('down/obj', join(files, 'small'));
    server.faults.push({ method: 'GET', status: 503, code: 'SlowDown', times: Infinity });
    const log = await requestsDuring(async () => {
      const err = await failure(store.readRange('down/obj', 0, 10));
      expect(err.code).toBe('STORAGE_UNAVAILABLE');
      expect(err.message).toMatch(/SlowDown.*after 3 attempts/);
    });
    expect(log).toHaveLength(3);
  });

  it('aborts a multipart upload whose part keeps failing, leaving no object', async () => {
    const store = s3({ maxAttempts: 2 });
    server.faults.push({
      method: 'PUT',
      urlIncludes: 'partNumber=2&',
      status: 500,
      code: 'InternalError',
      times: Infinity,
    });
    const log = await requestsDuring(async () => {
      expect((await failure(store.putFile('abort/big', join(files, 'big')))).code).toBe(
        'STORAGE_UNAVAILABLE',
      );
    });
    const lines = log.map(describeRequest);
    expect(lines.filter((l) => l.includes('partNumber=2'))).toHaveLength(2);
    expect(lines.at(-1)).toBe(`DELETE /${server.bucket}/abort/big?uploadId=…`);
    expect(lines.filter((l) => l.startsWith('POST') && l.includes('uploadId='))).toEqual([]);
    server.faults.length = 0;
    expect(await store.exists('abort/big')).toBe(false);
  });

  it('does not retry refused credentials: STORAGE_DENIED', async () => {
    const store = s3({ accessKeyId: 'WRONG', secretAccessKey: 'WRONG' });
    const log = await requestsDuring(async () => {
      expect((await failure(store.readRange('any/key', 0, 1))).code).toBe('STORAGE_DENIED');
    });
    expect(log).toHaveLength(1);
  });

  it('reports a missing bucket as STORAGE_NO_BUCKET', async () => {
    const store = s3({ bucket: 'no-such-bucket' });
    expect((await failure(store.putFile('k', join(files, 'small')))).code).toBe(
      'STORAGE_NO_BUCKET',
    );
    expect((await failure(store.readRange('k', 0, 1))).code).toBe('STORAGE_NO_BUCKET');
    const listing = (async () => {
      for await (const _ of store.list('')) void _;
    })();
    expect((await failure(listing)).code).toBe('STORAGE_NO_BUCKET');
  });

  it('reports an unreachable endpoint as STORAGE_UNAVAILABLE', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const store = s3({ endpoint: `http://127.0.0.1:${port}`, maxAttempts: 2 });
    const err = await failure(store.exists('k'));
    expect(err.code).toBe('STORAGE_UNAVAILABLE');
    expect(err.message).toContain('ECONNREFUSED');
  });
});

describe('S3 store: describe', () => {
  it('names the bucket and the endpoint, never credentials', () => {
    expect(s3().describe()).toBe(`s3://${server.bucket}/ at ${server.endpoint}`);
    const aws = openObjectStore({ kind: 's3', bucket: 'warc-archive', region: 'eu-west-1' });
    expect(aws.describe()).toBe('s3://warc-archive/');
    const withUser = s3({ endpoint: 'http://user:secret@127.0.0.1:9000/' });
    expect(withUser.describe()).toBe(`s3://${server.bucket}/ at http://127.0.0.1:9000`);
  });
});
