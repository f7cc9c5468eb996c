import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WarcWriter } from '@crawler/adapters/warc';
import { openObjectStore, StorageError, type ObjectStore } from './index';

let root = '';
let outside = '';
let store: ObjectStore;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'storage-root-'));
  outside = await mkdtemp(join(tmpdir(), 'storage-src-'));
  store = openObjectStore({ kind: 'local', dir: root });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof StorageError) return err.code;
    throw err;
  }
  throw new Error('expected a StorageError, got success');
}

/** Every file under `dir`, relative, sorted. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

describe('local store', () => {
  it("does nothing when the file already is the object (the WarcWriter's own folder)", async () => {
    const writer = await WarcWriter.open({
      dir: root,
      prefix: 'crawl/day/agent-1',
      software: 't/1',
    });
    const key = writer.currentKey();
    await writer.close();
    const before = await stat(join(root, key), { bigint: true });
    await store.putFile(key, join(root, key));
    const after = await stat(join(root, key), { bigint: true });
    expect(after.ino).toBe(before.ino);
    expect(after.mtimeNs).toBe(before.mtimeNs);
    expect(await filesUnder(root)).toEqual([key]);
  });

  it('copies other files in, leaving no staging file behind and the source in place', async () => {
    const source = join(outside, 'w.warc.gz');
    await writeFile(source, 'payload');
    await store.putFile('a/b/w.warc.gz', source);
    expect(await readFile(join(root, 'a/b/w.warc.gz'), 'utf8')).toBe('payload');
    expect(await readFile(source, 'utf8')).toBe('payload');
    expect(await filesUnder(root)).toEqual(['a/b/w.warc.gz']);
  });

  it('refuses keys a file system cannot hold together: STORAGE_KEY_CONFLICT', async () => {
    const source = join(outside, 'f');
    await writeFile(source, 'x');
    await store.putFile('a', source);
    expect(await codeOf(store.putFile('a/b', source))).toBe('STORAGE_KEY_CONFLICT');
    await store.putFile('c/d', source);
    expect(await codeOf(store.putFile('c', source))).toBe('STORAGE_KEY_CONFLICT');
    expect(await filesUnder(root)).toEqual(['a', 'c/d']);
  });

  it('lists nothing for a root that does not exist yet', async () => {
    const missing = openObjectStore({ kind: 'local', dir: join(root, 'not-yet') });
    const keys: string[] = [];
    for await (const e of missing.list('')) keys.push(e.key);
    expect(keys).toEqual([]);
    expect(await missing.exists('a')).toBe(false);
    expect(await codeOf(missing.readRange('a', 0, 1))).toBe('STORAGE_NOT_FOUND');
  });

  it('skips staging files and names that are not valid keys when listing', async () => {
    await mkdir(join(root, 'd'), { recursive: true });
    await writeFile(join(root, 'd', '.~0123.partial'), 'half');
    await writeFile(join(root, 'd', 'back\\slash'), 'x');
    await writeFile(join(root, 'd', 'ok'), 'x');
    const keys: string[] = [];
    for await (const e of store.list('d/')) keys.push(e.key);
    expect(keys).toEqual(['d/ok']);
  });

  it('resolves a relative folder and describes it as a file URL', () => {
    const relativeStore = openObjectStore({ kind: 'local', dir: 'data/warc' });
    expect(relativeStore.describe()).toBe(pathToFileURL(join(process.cwd(), 'data/warc')).href);
    expect(store.describe()).toBe(pathToFileURL(root).href);
  });
});
