import { describe, expect, it } from 'vitest';
import { telemetryRowSchema } from '@crawler/domain/messages';
import { toFetchRow } from './ingest-telemetry';

// The ingest builds fetch rows itself for rows that passed the compiled check (no zod output to
// start from): the result must be what zod's output gave before, field for field.
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

describe('toFetchRow', () => {
  const viaZod = (c: unknown) => {
    const data = telemetryRowSchema.parse(c);
    return { ...data, fetched_at: new Date(data.fetched_at) };
  };

  it('gives what zod gave, for a full row, a row with extra keys and rows missing defaults', () => {
    const cases: Record<string, unknown>[] = [row, { ...row, extra: 'x', another: 1 }];
    for (const key of defaulted) {
      const c: Record<string, unknown> = { ...row };
      delete c[key];
      cases.push(c);
    }
    const bare: Record<string, unknown> = { ...row };
    for (const key of defaulted) delete bare[key];
    cases.push(bare);
    for (const c of cases)
      expect(toFetchRow(c as Parameters<typeof toFetchRow>[0])).toStrictEqual(viaZod(c));
  });
});
