import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { keyProblem } from './object-key';
import { SHIPPED_SUFFIX } from './shipped-marker';

/** A WARC file found under a local folder. */
export interface LocalWarcFile {
  /** Path relative to the folder, `/`-separated: the object key. */
  key: string;
  path: string;
  /** Its `.shipped` marker exists. */
  shipped: boolean;
}

/**
 * Every `*.warc.gz` file under `dir`, in key order, with whether it was shipped. Files whose
 * relative path is not a valid object key (e.g. the local store's `.~` staging files) are left
 * out. A missing folder has none.
 */
export async function findLocalWarcFiles(dir: string): Promise<LocalWarcFile[]> {
  let entries;
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch (err) {
    if (err instanceof Error && 'code' in err && err.code === 'ENOENT') return [];
    throw err;
  }
  const paths = new Set(entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name)));
  const found: LocalWarcFile[] = [];
  for (const path of paths) {
    if (!path.endsWith('.warc.gz')) continue;
    const key = relative(dir, path).split(sep).join('/');
    if (keyProblem(key) !== null) continue;
    found.push({ key, path, shipped: paths.has(`${path}${SHIPPED_SUFFIX}`) });
  }
  return found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
