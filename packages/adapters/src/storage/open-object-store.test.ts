import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  objectStoreFromSettings,
  openObjectStore,
  StorageError,
  type ObjectStoreOptions,
} from './index';
import { startTestS3Server, type TestS3Server } from '@crawler/testing';

describe('openObjectStore', () => {
  it.each([
    [{ kind: 'local', dir: '' }, /option dir/],
    [{ kind: 's3', bucket: '' }, /option bucket/],
    [{ kind: 's3', bucket: 'b/c' }, /option bucket/],
    [{ kind: 's3', bucket: 'b', endpoint: 'ftp://x' }, /option endpoint/],
    [{ kind: 's3', bucket: 'b', endpoint: 'not a url' }, /option endpoint/],
    [{ kind: 's3', bucket: 'b', accessKeyId: 'id' }, /option secretAccessKey: give both/],
    [{ kind: 's3', bucket: 'b', listPageSize: 5000 }, /option listPageSize/],
    [{ kind: 's3', bucket: 'b', region: 'US East' }, /option region/],
  ])('rejects %j with STORAGE_BAD_OPTIONS', (options, message) => {
    let error: unknown;
    try {
      openObjectStore(options as ObjectStoreOptions);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).code).toBe('STORAGE_BAD_OPTIONS');
    expect((error as StorageError).message).toMatch(message);
  });

  it('rejects unknown options (a typo must not pass silently)', () => {
    const typo = { kind: 's3', bucket: 'b', forcePathstyle: true } as unknown as ObjectStoreOptions;
    expect(() => openObjectStore(typo)).toThrow(/forcePathstyle/);
  });
});

describe('objectStoreFromSettings', () => {
  let server: TestS3Server;
  let dir = '';
  beforeAll(async () => {
    server = await startTestS3Server();
    dir = await mkdtemp(join(tmpdir(), 'storage-settings-'));
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is the local folder DATA_DIR/warc without S3_BUCKET (empty counts as unset)', () => {
    for (const S3_BUCKET of [undefined, '', '  ']) {
      const store = objectStoreFromSettings({ dataDir: './data', S3_BUCKET, S3_ENDPOINT: '' });
      expect(store.describe()).toBe(pathToFileURL(resolve('data/warc')).href);
    }
  });

  it('is AWS S3 with S3_BUCKET alone', () => {
    const store = objectStoreFromSettings({ dataDir: './data', S3_BUCKET: 'warc-archive' });
    expect(store.describe()).toBe('s3://warc-archive/');
  });

  it('talks path-style to S3_ENDPOINT with the given keys', async () => {
    const store = objectStoreFromSettings({
      dataDir: dir,
      S3_ENDPOINT: server.endpoint,
      S3_BUCKET: server.bucket,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: server.accessKeyId,
      S3_SECRET_ACCESS_KEY: server.secretAccessKey,
    });
    expect(store.describe()).toBe(`s3://${server.bucket}/ at ${server.endpoint}`);
    const bytes = randomBytes(100);
    await writeFile(join(dir, 'f'), bytes);
    await store.putFile('settings/f', join(dir, 'f'));
    expect(Buffer.from(await store.readRange('settings/f', 10, 5))).toEqual(bytes.subarray(10, 15));
    // Path-style: the bucket is the first path segment, not part of the host name.
    expect(server.requests.at(-1)?.url).toMatch(new RegExp(`^/${server.bucket}/settings/f`));
  });
});
