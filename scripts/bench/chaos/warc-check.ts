import type { ObjectStore } from '@crawler/adapters/storage';
import { readWarcRecordFromStore } from '@crawler/adapters/warc';

/** One row of ClickHouse `fetches` (FINAL), the fields the chaos bench reads. */
export interface FetchRowLite {
  url: string;
  status: number;
  error_code: string;
  /** fetched_at, epoch ms. */
  at_ms: number;
  agent_id: string;
  warc_key: string;
  warc_offset: number;
  warc_length: number;
  record_type: string;
  record_id: string;
}

const ROWS_SQL = `
SELECT url, status, error_code, toUnixTimestamp64Milli(fetched_at) AS at_ms, agent_id,
       warc_key, warc_offset, warc_length, record_type, record_id
FROM fetches FINAL`;

/** The url_fp of every page ClickHouse `pages` holds. */
const PAGES_SQL = 'SELECT DISTINCT url_fp FROM pages';

/**
 * Every fetch row the coordinator stored, and the url_fp of every page in `pages`, read from its
 * embedded ClickHouse folder in this process. Only once the coordinator has stopped: chdb binds
 * a folder to one process. (This process never runs chdb off its main thread, so it cannot hit
 * chdb's crash when a worker thread that loaded it exits.)
 */
export async function readStoredRows(
  clickhousePath: string,
): Promise<{ fetches: FetchRowLite[]; pageFps: Set<string> }> {
  const { openAnalytics } = await import('@crawler/analytics');
  const store = await openAnalytics({ path: clickhousePath });
  try {
    const raw = await store.queryJson<Record<keyof FetchRowLite, string | number>>(ROWS_SQL);
    const pages = await store.queryJson<{ url_fp: string }>(PAGES_SQL);
    const pageFps = new Set(pages.map((p) => String(p.url_fp)));
    const fetches = raw.map((r) => ({
      url: String(r.url),
      status: Number(r.status),
      error_code: String(r.error_code),
      at_ms: Number(r.at_ms),
      agent_id: String(r.agent_id),
      warc_key: String(r.warc_key),
      warc_offset: Number(r.warc_offset),
      warc_length: Number(r.warc_length),
      record_type: String(r.record_type),
      record_id: String(r.record_id),
    }));
    return { fetches, pageFps };
  } finally {
    await store.close();
  }
}

/** Rows that point at a WARC record (a capture: the inspector's `captures`). */
export function pointsAtRecord(r: FetchRowLite): boolean {
  return r.warc_key !== '' && r.warc_length > 0;
}

export interface WarcCheck {
  checked: number;
  missing: number;
  /** A few missing records with why, for the log. */
  examples: string[];
}

/** One object's bytes, held so that its records are read without a request each. */
class OneObjectStore implements ObjectStore {
  constructor(
    private readonly key: string,
    private readonly bytes: Uint8Array,
  ) {}
  async readRange(key: string, offset: number, length: number): Promise<Uint8Array> {
    if (key !== this.key) throw new Error(`not held: ${key}`);
    if (offset + length > this.bytes.length)
      throw new Error(`range ${offset}+${length} past the end (${this.bytes.length} bytes)`);
    return this.bytes.subarray(offset, offset + length);
  }
  async putFile(): Promise<void> {
    throw new Error('read-only');
  }
  async *list(): AsyncIterable<{ key: string; size: number }> {
    yield { key: this.key, size: this.bytes.length };
  }
  async exists(key: string): Promise<boolean> {
    return key === this.key;
  }
  describe(): string {
    return `memory:${this.key}`;
  }
}

/**
 * Reads back the WARC record of every row that points at one, as the coordinator's capture
 * API does (`readWarcRecordFromStore`: the byte range, parsed, digests verified), and checks it
 * is that row's record (its WARC-Record-ID and target URI). Each WARC object is downloaded once.
 */
export async function checkWarcRecords(
  store: ObjectStore,
  rows: readonly FetchRowLite[],
): Promise<WarcCheck> {
  const sizes = new Map<string, number>();
  for await (const o of store.list('')) sizes.set(o.key, o.size);
  const byKey = new Map<string, FetchRowLite[]>();
  for (const r of rows.filter(pointsAtRecord)) {
    const list = byKey.get(r.warc_key) ?? [];
    list.push(r);
    byKey.set(r.warc_key, list);
  }
  const result: WarcCheck = { checked: 0, missing: 0, examples: [] };
  const miss = (r: FetchRowLite, why: string): void => {
    result.missing++;
    if (result.examples.length < 10)
      result.examples.push(`${r.url} (${r.agent_id}) @ ${r.warc_key}:${r.warc_offset}: ${why}`);
  };
  for (const [key, list] of byKey) {
    result.checked += list.length;
    const size = sizes.get(key);
    if (size === undefined) {
      for (const r of list) miss(r, 'no such WARC object in storage');
      continue;
    }
    const object = new OneObjectStore(key, await store.readRange(key, 0, size));
    for (const r of list) {
      try {
        const rec = await readWarcRecordFromStore(object, key, r.warc_offset, r.warc_length);
        if (!rec.digestsOk) miss(r, 'digests do not verify');
        else if (r.record_id !== '' && rec.recordId !== r.record_id)
          miss(r, `another record (${rec.recordId}) is there`);
        else if (rec.targetUri !== r.url) miss(r, `record of ${rec.targetUri ?? '?'}`);
      } catch (err) {
        miss(r, err instanceof Error ? err.message : String(err));
      }
    }
  }
  return result;
}
