import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openObjectStore, StorageError, type ObjectEntry, type ObjectStore } from './index';
import { startTestS3Server, type TestS3Server } from '@crawler/testing';

/** One contract, two stores: the local folder and S3 (s3rver on loopback). */
interface Harness {
  /** A store whose keys start empty (a fresh folder, or a fresh key prefix in the bucket). */
  store(): Promise<{ store: ObjectStore; prefix: string }>;
  close(): Promise<void>;
}

let files = '';
let small = Buffer.alloc(0);
let big = Buffer.alloc(0);
const SMALL = 'small.bin';
const BIG = 'big.bin';
/** 20 MiB and an odd tail: three 8 MiB multipart parts on S3, the last one short. */
const BIG_BYTES = 20 * 1024 * 1024 + 12_345;

beforeAll(async () => {
  files = await mkdtemp(join(tmpdir(), 'storage-files-'));
  small = randomBytes(5000);
  big = randomBytes(BIG_BYTES);
  await writeFile(join(files, SMALL), small);
  await writeFile(join(files, BIG), big);
});
afterAll(async () => {
  await rm(files, { recursive: true, force: true });
});

async function localHarness(): Promise<Harness> {
  const roots: string[] = [];
  return {
    async store() {
      const dir = await mkdtemp(join(tmpdir(), 'storage-local-'));
      roots.push(dir);
      return { store: openObjectStore({ kind: 'local', dir }), prefix: '' };
    },
    async close() {
      await Promise.all(roots.map((r) => rm(r, { recursive: true, force: true })));
    },
  };
}

async function s3Harness(): Promise<Harness> {
  const server: TestS3Server = await startTestS3Server();
  let n = 0;
  // One store for all tests; each test gets its own key prefix. Small list pages make every
  // list test cross page boundaries.
  const store = openObjectStore({
    kind: 's3',
    endpoint: server.endpoint,
    bucket: server.bucket,
    accessKeyId: server.accessKeyId,
    secretAccessKey: server.secretAccessKey,
    forcePathStyle: true,
    listPageSize: 2,
  });
  return {
    async store() {
      return { store: prefixed(store, `t${++n}/`), prefix: `t${n}/` };
    },
    close: () => server.close(),
  };
}

/**
 * The store seen through a key prefix, so S3 tests sharing one bucket do not see each other's
 * keys. Listed keys come back without the prefix.
 */
function prefixed(store: ObjectStore, p: string): ObjectStore {
  return {
    putFile: (key, path) => store.putFile(p + key, path),
    readRange: (key, offset, length) => store.readRange(p + key, offset, length),
    exists: (key) => store.exists(p + key),
    describe: () => store.describe(),
    async *list(prefix) {
      for await (const e of store.list(p + prefix)) yield { ...e, key: e.key.slice(p.length) };
    },
  };
}

async function collect(it: AsyncIterable<ObjectEntry>): Promise<ObjectEntry[]> {
  const out: ObjectEntry[] = [];
  for await (const e of it) out.push(e);
  return out;
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(StorageError);
    return (err as StorageError).code;
  }
  throw new Error('expected a StorageError, got success');
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe.each([
  ['local', localHarness],
  ['s3', s3Harness],
] as const)('ObjectStore contract: %s', (kind, makeHarness) => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await makeHarness();
  });
  afterAll(async () => {
    await harness.close();
  });

  it('uploads a small file and reads ranges back byte-exact', async () => {
    const { store } = await harness.store();
    await store.putFile('crawl/a/00000.warc.gz', join(files, SMALL));
    expect(await store.exists('crawl/a/00000.warc.gz')).toBe(true);
    const read = async (offset: number, length: number) =>
      Buffer.from(await store.readRange('crawl/a/00000.warc.gz', offset, length));
    expect(await read(0, small.length)).toEqual(small);
    expect(await read(0, 1)).toEqual(small.subarray(0, 1));
    expect(await read(1234, 777)).toEqual(small.subarray(1234, 2011));
    expect(await read(small.length - 1, 1)).toEqual(small.subarray(small.length - 1));
  });

  it('uploads a 20 MB file (multipart on S3) and reads it back byte-exact', async () => {
    const { store } = await harness.store();
    await store.putFile('crawl/big/00000.warc.gz', join(files, BIG));
    const part = 8 * 1024 * 1024;
    // Ranges inside the first part, across both part boundaries, and at the very end.
    for (const [offset, length] of [
      [0, 100],
      [part - 10, 20],
      [2 * part - 1, 2],
      [BIG_BYTES - 5000, 5000],
    ] as const) {
      const bytes = await store.readRange('crawl/big/00000.warc.gz', offset, length);
      expect(Buffer.from(bytes).equals(big.subarray(offset, offset + length))).toBe(true);
    }
    const whole = await store.readRange('crawl/big/00000.warc.gz', 0, BIG_BYTES);
    expect(sha256(whole)).toBe(sha256(big));
    expect(await collect(store.list('crawl/big/'))).toEqual([
      { key: 'crawl/big/00000.warc.gz', size: BIG_BYTES },
    ]);
  });

  it('replaces an object uploaded again under the same key', async () => {
    const { store } = await harness.store();
    const other = join(files, `${kind}-other.bin`);
    await writeFile(other, 'second version');
    await store.putFile('k/obj', join(files, SMALL));
    await store.putFile('k/obj', other);
    expect(Buffer.from(await store.readRange('k/obj', 0, 14)).toString()).toBe('second version');
    expect(await collect(store.list('k/'))).toEqual([{ key: 'k/obj', size: 14 }]);
  });

  it('stores an empty file', async () => {
    const { store } = await harness.store();
    const empty = join(files, `${kind}-empty.bin`);
    await writeFile(empty, '');
    await store.putFile('z/empty', empty);
    expect(await store.exists('z/empty')).toBe(true);
    expect(await collect(store.list('z/'))).toEqual([{ key: 'z/empty', size: 0 }]);
    expect(await codeOf(store.readRange('z/empty', 0, 1))).toBe('STORAGE_BAD_RANGE');
  });

  it('lists keys under a prefix (a string match) with sizes, in key order, across pages', async () => {
    const { store } = await harness.store();
    const path = join(files, SMALL);
    const keys = ['p/a/2', 'p/a/1', 'p/ab', 'p/a-c', 'p/b/1', 'p/b/2/x', 'q/1', 'p/a/3'];
    for (const key of keys) await store.putFile(key, path);
    const keysOf = async (prefix: string) => (await collect(store.list(prefix))).map((e) => e.key);

    // `p/a-c` sorts before `p/a/…` in UTF-8 byte order ("-" < "/").
    expect(await keysOf('p/a')).toEqual(['p/a-c', 'p/a/1', 'p/a/2', 'p/a/3', 'p/ab']);
    expect(await keysOf('p/a/')).toEqual(['p/a/1', 'p/a/2', 'p/a/3']);
    expect(await keysOf('p/b')).toEqual(['p/b/1', 'p/b/2/x']);
    expect(await keysOf('p/')).toHaveLength(7);
    expect(await keysOf('q')).toEqual(['q/1']);
    expect(await keysOf('nothing/')).toEqual([]);
    expect(await keysOf('p/a/1')).toEqual(['p/a/1']);
    const all = await collect(store.list(''));
    expect(all.map((e) => e.key)).toEqual([...keys].sort());
    expect(all.every((e) => e.size === small.length)).toBe(true);
  });

  it('says whether an object exists; a "folder" of keys is not one', async () => {
    const { store } = await harness.store();
    await store.putFile('e/x/1.warc.gz', join(files, SMALL));
    expect(await store.exists('e/x/1.warc.gz')).toBe(true);
    expect(await store.exists('e/x')).toBe(false);
    expect(await store.exists('e/x/2.warc.gz')).toBe(false);
    expect(await store.exists('e/x/1.warc.gz/deeper')).toBe(false);
    expect(await store.exists('never/seen')).toBe(false);
  });

  it('keeps keys with spaces, "+", and non-ASCII letters, and a 1024-byte key', async () => {
    const { store, prefix } = await harness.store();
    const odd = 'crawl/2026 11/ünï+cödé (1)&=.warc.gz';
    await store.putFile(odd, join(files, SMALL));
    expect(Buffer.from(await store.readRange(odd, 10, 10))).toEqual(small.subarray(10, 20));
    expect(await collect(store.list('crawl/2026 11/'))).toEqual([{ key: odd, size: 5000 }]);

    const segment = 'x'.repeat(200);
    const long = `${segment}/${segment}/${segment}/${segment}/`.slice(prefix.length);
    const longKey = long + 'y'.repeat(1024 - long.length - prefix.length);
    expect(Buffer.byteLength(prefix + longKey)).toBe(1024);
    await store.putFile(longKey, join(files, SMALL));
    expect(await store.exists(longKey)).toBe(true);
  });

  it('fails with STORAGE_NOT_FOUND for a missing object', async () => {
    const { store } = await harness.store();
    expect(await codeOf(store.readRange('missing/object', 0, 10))).toBe('STORAGE_NOT_FOUND');
    await store.putFile('present/object', join(files, SMALL));
    expect(await codeOf(store.readRange('present', 0, 10))).toBe('STORAGE_NOT_FOUND');
  });

  it('fails with STORAGE_BAD_RANGE for ranges past the end or malformed', async () => {
    const { store } = await harness.store();
    await store.putFile('r/obj', join(files, SMALL));
    expect(await codeOf(store.readRange('r/obj', small.length, 1))).toBe('STORAGE_BAD_RANGE');
    expect(await codeOf(store.readRange('r/obj', small.length - 10, 11))).toBe('STORAGE_BAD_RANGE');
    expect(await codeOf(store.readRange('r/obj', 10_000_000, 5))).toBe('STORAGE_BAD_RANGE');
    expect(await codeOf(store.readRange('r/obj', -1, 5))).toBe('STORAGE_BAD_RANGE');
    expect(await codeOf(store.readRange('r/obj', 0, 0))).toBe('STORAGE_BAD_RANGE');
    expect(await codeOf(store.readRange('r/obj', 1.5, 5))).toBe('STORAGE_BAD_RANGE');
  });

  it('fails with STORAGE_BAD_SOURCE when the file to upload cannot be read', async () => {
    const { store } = await harness.store();
    expect(await codeOf(store.putFile('s/obj', join(files, 'no-such-file')))).toBe(
      'STORAGE_BAD_SOURCE',
    );
    expect(await codeOf(store.putFile('s/obj', files))).toBe('STORAGE_BAD_SOURCE');
    expect(await store.exists('s/obj')).toBe(false);
  });

  it('rejects bad keys and prefixes with STORAGE_BAD_KEY before touching anything', async () => {
    const { store } = await harness.store();
    const path = join(files, SMALL);
    const bad = [
      '',
      '/abs',
      '..',
      'a/../b',
      '../up',
      'a/./b',
      'a//b',
      'trailing/',
      'back\\slash',
      'nul\u0000byte',
      'a/.~staging',
      'é'.repeat(513),
      `${'x'.repeat(256)}/y`,
    ];
    for (const key of bad) {
      expect(await codeOf(store.putFile(key, path)), key).toBe('STORAGE_BAD_KEY');
      expect(await codeOf(store.readRange(key, 0, 1)), key).toBe('STORAGE_BAD_KEY');
      expect(await codeOf(store.exists(key)), key).toBe('STORAGE_BAD_KEY');
    }
    for (const prefix of ['/', '/abs', '../', 'a/../', 'a//']) {
      expect(await codeOf(collect(store.list(prefix))), prefix).toBe('STORAGE_BAD_KEY');
    }
    expect(await collect(store.list(''))).toEqual([]);
  });

  it('describes its location', async () => {
    const { store } = await harness.store();
    expect(store.describe()).toMatch(
      kind === 'local' ? /^file:\/\/\// : /^s3:\/\/test-[0-9a-f]+\//,
    );
  });
});
