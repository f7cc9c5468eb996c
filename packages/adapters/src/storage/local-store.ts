import { randomBytes } from 'node:crypto';
import { constants, type Dirent } from 'node:fs';
import {
  copyFile,
  mkdir,
  open,
  readdir,
  rename,
  stat,
  unlink,
  type FileHandle,
} from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  keyProblem,
  RESERVED_SEGMENT_PREFIX,
  validateKey,
  validatePrefix,
  validateRange,
} from './object-key';
import { StorageError, type StorageErrorCode } from './storage-errors';
import type { ObjectEntry, ObjectStore } from './types';

/** The `code` of a Node.js system error, if it is one. */
function errnoCode(err: unknown): string | undefined {
  if (!(err instanceof Error) || !('code' in err)) return undefined;
  return typeof err.code === 'string' ? err.code : undefined;
}

/** Maps a file-system error to a StorageError; `overrides` picks codes for this call's errnos. */
function fsError(
  err: unknown,
  what: string,
  overrides: Partial<Record<string, StorageErrorCode>> = {},
): StorageError {
  if (err instanceof StorageError) return err;
  const errno = errnoCode(err) ?? '';
  const code: StorageErrorCode =
    overrides[errno] ??
    (errno === 'ENOENT'
      ? 'STORAGE_NOT_FOUND'
      : errno === 'EACCES' || errno === 'EPERM'
        ? 'STORAGE_DENIED'
        : errno === 'EMFILE' || errno === 'ENFILE' || errno === 'EBUSY' || errno === 'EAGAIN'
          ? 'STORAGE_UNAVAILABLE'
          : 'STORAGE_FAILED');
  const detail = err instanceof Error ? err.message : String(err);
  return new StorageError(code, `${what}: ${detail}`, { cause: err });
}

/** A missing object: the path is absent, or a parent of it is a file. */
const MISSING = { ENOENT: 'STORAGE_NOT_FOUND', ENOTDIR: 'STORAGE_NOT_FOUND' } as const;

/**
 * Objects as files under a root folder: key `a/b.warc.gz` is `${root}/a/b.warc.gz`.
 *
 * `putFile` copies the file into place: it copies to a staging file beside the target (a
 * `.~…` name, never listed), fsyncs it and renames it over the target, so readers see the old
 * object or the new one, never a part. The copy uses a reflink where the file system can. When
 * `path` already is the object's file (same device and inode), as when the WarcWriter writes
 * straight into this store's root, `putFile` does nothing. Moving instead of copying was left
 * out on purpose: the caller keeps its file, as with the S3 store.
 *
 * A file system cannot hold both `a` and `a/b`: such keys fail with STORAGE_KEY_CONFLICT.
 */
export class LocalObjectStore implements ObjectStore {
  private readonly root: string;

  /** `dir` is resolved against the working directory now; it need not exist yet. */
  constructor(dir: string) {
    this.root = resolve(dir);
  }

  describe(): string {
    return pathToFileURL(this.root).href;
  }

  async putFile(key: string, path: string): Promise<void> {
    validateKey(key);
    const target = this.pathOf(key);
    let source;
    try {
      source = await stat(path, { bigint: true });
    } catch (err) {
      throw fsError(err, `cannot read ${path}`, {
        ENOENT: 'STORAGE_BAD_SOURCE',
        ENOTDIR: 'STORAGE_BAD_SOURCE',
        EACCES: 'STORAGE_BAD_SOURCE',
      });
    }
    if (!source.isFile()) {
      throw new StorageError('STORAGE_BAD_SOURCE', `${path} is not a regular file`);
    }

    const existing = await stat(target, { bigint: true }).catch(() => null);
    if (existing?.isFile() && existing.dev === source.dev && existing.ino === source.ino) return;
    if (existing?.isDirectory()) throw this.conflict(key, 'a folder of other keys is there');

    const folder = dirname(target);
    try {
      await mkdir(folder, { recursive: true });
    } catch (err) {
      throw fsError(err, `cannot create the folder of ${key}`, {
        ENOTDIR: 'STORAGE_KEY_CONFLICT',
        EEXIST: 'STORAGE_KEY_CONFLICT',
      });
    }
    const staging = join(
      folder,
      `${RESERVED_SEGMENT_PREFIX}${randomBytes(8).toString('hex')}.partial`,
    );
    try {
      await copyFile(path, staging, constants.COPYFILE_FICLONE);
      await syncPath(staging, 'r+');
      await rename(staging, target);
    } catch (err) {
      await unlink(staging).catch(() => undefined);
      throw fsError(err, `cannot store ${path} as ${key}`, {
        ENOENT: 'STORAGE_BAD_SOURCE',
        EISDIR: 'STORAGE_KEY_CONFLICT',
        ENOTEMPTY: 'STORAGE_KEY_CONFLICT',
      });
    }
    // Makes the rename itself durable; some file systems refuse to fsync a folder.
    await syncPath(folder, 'r').catch(() => undefined);
  }

  /**
   * Whether the object `key` is the file at `path` itself (same device and inode), as when the
   * WarcWriter writes straight into this store's root. Then uploading it changes nothing, and
   * the file must not be removed as "shipped": it is the object.
   */
  async holds(key: string, path: string): Promise<boolean> {
    validateKey(key);
    const [object, file] = await Promise.all([
      stat(this.pathOf(key), { bigint: true }).catch(() => null),
      stat(path, { bigint: true }).catch(() => null),
    ]);
    return (
      object !== null &&
      file !== null &&
      object.isFile() &&
      object.dev === file.dev &&
      object.ino === file.ino
    );
  }

  async readRange(key: string, offset: number, length: number): Promise<Uint8Array> {
    validateKey(key);
    validateRange(offset, length);
    let handle: FileHandle;
    try {
      handle = await open(this.pathOf(key), 'r');
    } catch (err) {
      throw fsError(err, `cannot open ${key}`, MISSING);
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw new StorageError('STORAGE_NOT_FOUND', `no object ${key}`);
      if (offset + length > info.size) throw pastEnd(key, offset, length, info.size);
      const out = new Uint8Array(length);
      let filled = 0;
      while (filled < length) {
        const { bytesRead } = await handle.read(out, filled, length - filled, offset + filled);
        if (bytesRead === 0) throw pastEnd(key, offset, length, offset + filled);
        filled += bytesRead;
      }
      return out;
    } catch (err) {
      throw fsError(err, `cannot read ${key}`, MISSING);
    } finally {
      await handle.close();
    }
  }

  async *list(prefix: string): AsyncIterable<ObjectEntry> {
    validatePrefix(prefix);
    // Start in the deepest folder the prefix names completely: `a/b/c` → `a/b`.
    const cut = prefix.lastIndexOf('/');
    yield* this.walk(cut < 0 ? '' : prefix.slice(0, cut), prefix);
  }

  async exists(key: string): Promise<boolean> {
    validateKey(key);
    try {
      return (await stat(this.pathOf(key))).isFile();
    } catch (err) {
      const errno = errnoCode(err);
      if (errno === 'ENOENT' || errno === 'ENOTDIR') return false;
      throw fsError(err, `cannot stat ${key}`);
    }
  }

  private pathOf(key: string): string {
    return join(this.root, ...key.split('/'));
  }

  private conflict(key: string, why: string): StorageError {
    return new StorageError('STORAGE_KEY_CONFLICT', `cannot store ${key}: ${why}`);
  }

  /**
   * Yields the files under folder `folderKey` whose keys start with `prefix`, in ascending UTF-8
   * byte order of key (as S3 lists): entries are sorted with `/` appended to folder names, since
   * every key inside folder `x` starts with `x/`. Staging files and names that are not valid
   * key segments are skipped; so are entries that vanish during the walk.
   */
  private async *walk(folderKey: string, prefix: string): AsyncGenerator<ObjectEntry> {
    const folder = folderKey === '' ? this.root : this.pathOf(folderKey);
    let entries: Dirent[];
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch (err) {
      const errno = errnoCode(err);
      if (errno === 'ENOENT' || errno === 'ENOTDIR') return;
      throw fsError(err, `cannot list ${folderKey || '/'}`);
    }
    const sorted = entries
      .filter((e) => (e.isFile() || e.isDirectory()) && keyProblem(e.name) === null)
      .map((e) => ({ entry: e, order: Buffer.from(e.isDirectory() ? `${e.name}/` : e.name) }))
      .sort((a, b) => Buffer.compare(a.order, b.order));
    for (const { entry } of sorted) {
      const key = folderKey === '' ? entry.name : `${folderKey}/${entry.name}`;
      if (entry.isDirectory()) {
        const inside = `${key}/`;
        if (inside.startsWith(prefix) || prefix.startsWith(inside)) yield* this.walk(key, prefix);
      } else if (key.startsWith(prefix)) {
        const size = await stat(join(folder, entry.name)).then(
          (s) => s.size,
          () => null,
        );
        if (size !== null) yield { key, size };
      }
    }
  }
}

function pastEnd(key: string, offset: number, length: number, size: number): StorageError {
  return new StorageError(
    'STORAGE_BAD_RANGE',
    `${key}: bytes ${offset}–${offset + length - 1} pass the end of the object (${size} bytes)`,
  );
}

/** fsyncs a file or folder by path. */
async function syncPath(path: string, flags: 'r' | 'r+'): Promise<void> {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
