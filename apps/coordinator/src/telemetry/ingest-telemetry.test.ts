import { describe, expect, it } from 'vitest';
import { compileFastCheck, fetchRowSchema, type FetchRow } from '@crawler/analytics';
import { telemetryRowSchema } from '@crawler/domain/messages';
import { checkTelemetryRow } from './ingest-telemetry';

// The ingest passes a row that passed the compiled check on as it came (no zod output to start
// from): it must be stored as zod's output would be, field for field.
const row = {
  url_fp: '0123456789abcdef',
  url: 'https://a.example/x',
  host: 'a.example',
  fetched_at: 1_796_000_000_123,
  status: 200,
  error_code: '',
  bytes: 10,
  fetch_ms: 5,
  content_type: 'text/html',
  content_hash: 'a'.repeat(64),
  depth: 2,
  agent_id: 'agent-1',
  warc_key: 'k.warc.gz',
  warc_offset: 7,
  warc_length: 9,
  redirect_to: '',
  record_type: 'response',
  record_id: '<urn:uuid:1>',
  payload_digest: 'sha1:X',
  etag: '"e"',
  last_modified: 'Mon, 30 Nov 2026 00:00:00 GMT',
  change: 'changed',
  duplicate_of: 'https://a.example/y',
  simhash: 'b'.repeat(16),
};
const defaulted = [
  'record_type',
  'record_id',
  'payload_digest',
  'etag',
  'last_modified',
  'change',
  'duplicate_of',
  'simhash',
] as const;

describe('checkTelemetryRow', () => {
  const viaZod = (c: unknown) => {
    const data = telemetryRowSchema.parse(c);
    return { ...data, fetched_at: new Date(data.fetched_at) };
  };
  /** The row as the table stores it: the table's schema fills what was left to defaults. */
  const stored = (r: FetchRow) => fetchRowSchema.parse(r);
  const isFetchRow = compileFastCheck(fetchRowSchema);

  it('is stored as zod gave it, for a full row, a row with extra keys and rows missing defaults', () => {
    const cases: Record<string, unknown>[] = [row, { ...row, extra: 'x', another: 1 }];
    for (const key of defaulted) {
      const c: Record<string, unknown> = { ...row };
      delete c[key];
      cases.push(c);
    }
    const bare: Record<string, unknown> = { ...row };
    for (const key of defaulted) delete bare[key];
    cases.push(bare);
    for (const c of cases) {
      const checked = checkTelemetryRow(c);
      if (Array.isArray(checked)) throw new Error('refused a valid row');
      expect(isFetchRow?.(checked)).toBe(true);
      expect(stored(checked)).toStrictEqual(viaZod(c));
    }
  });

  it('gives the issues of a row the schema refuses', () => {
    const issues = checkTelemetryRow({ ...row, status: 1200 });
    expect(Array.isArray(issues) && issues.map((i) => i.path.join('.'))).toEqual(['status']);
    expect(Array.isArray(checkTelemetryRow('row'))).toBe(true);
  });
});
