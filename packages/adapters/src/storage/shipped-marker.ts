import { open, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Suffix of the sidecar that records a verified upload: `00003.warc.gz` → `00003.warc.gz.shipped`.
 * A sidecar rather than a journal: it is written once per file, survives the file's removal
 * (so the WarcWriter never reuses that sequence number) and can be inspected with `ls`.
 */
export const SHIPPED_SUFFIX = '.shipped';

/** What a marker says, as one line of JSON (for people; only its existence matters to code). */
export interface ShippedRecord {
  key: string;
  /** `ObjectStore.describe()` of the store it went to. */
  store: string;
  bytes: number;
  shippedAt: string;
}

/** Path of the marker of the file at `path`. */
export function markerPath(path: string): string {
  return `${path}${SHIPPED_SUFFIX}`;
}

/** Whether the file at `path` has been shipped (its marker exists). */
export async function isMarkedShipped(path: string): Promise<boolean> {
  return stat(markerPath(path)).then(
    () => true,
    () => false,
  );
}

/**
 * Writes the marker of the file at `path` and fsyncs it and its folder: when the local file is
 * removed next, the marker must already be on disk, or a crash could lose the record of an
 * upload (and free its sequence number for reuse).
 */
export async function markShipped(path: string, record: ShippedRecord): Promise<void> {
  const handle = await open(markerPath(path), 'w');
  try {
    await handle.writeFile(`${JSON.stringify(record)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  const folder = await open(dirname(path), 'r');
  try {
    // Some file systems refuse to fsync a folder; the marker itself is durable then.
    await folder.sync().catch(() => undefined);
  } finally {
    await folder.close();
  }
}
