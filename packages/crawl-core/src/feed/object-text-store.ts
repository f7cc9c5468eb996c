import { randomBytes } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ObjectStore } from '@crawler/adapters/storage';
import type { TextStore } from './page-publisher';

/**
 * A {@link TextStore} over the object store (local folder or S3): the text is staged in a
 * temporary file, uploaded under its key, and the file removed. Keys are content-addressed,
 * so a text already stored is not uploaded again.
 */
export function objectTextStore(store: ObjectStore, stagingDir: string): TextStore {
  return async (key, text) => {
    if (await store.exists(key)) return;
    await mkdir(stagingDir, { recursive: true });
    const path = join(stagingDir, `${randomBytes(8).toString('hex')}.txt`);
    try {
      await writeFile(path, text);
      await store.putFile(key, path);
    } finally {
      await rm(path, { force: true });
    }
  };
}
