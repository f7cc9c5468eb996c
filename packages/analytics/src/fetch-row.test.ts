import { describe, expect, it } from 'vitest';
import { encodeFetchRows, FETCH_COLUMNS, type FetchRow } from './fetch-row';

const row: FetchRow = {
  url_fp: '0123456789abcdef',
  url: 'https://a.example/x?q="1"',
  host: 'a.example',
  fetched_at: new Date(Date.UTC(2026, 10, 30, 12, 0, 0, 123)),
  status: 200,
  error_code: '',
  bytes: 10,
  fetch_ms: 20,
  content_type: 'text/html',
  content_hash: 'c'.repeat(64),
  depth: 3,
  agent_id: 'agent-1',
  warc_key: 'crawl/x.warc.gz',
  warc_offset: 40,
  warc_length: 50,
  redirect_to: 'https://a.example/y',
  record_type: 'revisit',
  record_id: '<urn:uuid:1>',
  payload_digest: 'sha1:AAAA',
  etag: '"e"',
  last_modified: 'Mon, 30 Nov 2026 12:00:00 GMT',
  change: 'unchanged',
  duplicate_of: 'https://b.example/',
  simhash: 'ffff0000ffff0000',
};

describe('encodeFetchRows', () => {
  it('writes every column of the table, in the order of FETCH_COLUMNS', async () => {
    const [line] = (await encodeFetchRows([row])).toString().split('\n');
    const values = JSON.parse(line ?? '') as unknown[];
    expect(values).toHaveLength(FETCH_COLUMNS.length);
    FETCH_COLUMNS.forEach((column, i) =>
      expect([column, values[i]]).toEqual([
        column,
        column === 'fetched_at' ? row.fetched_at.getTime() : row[column],
      ]),
    );
  });

  it('fills the columns of migration 003 with "" when a row has none', async () => {
    const { record_type: _t, change: _c, simhash: _s, ...old } = row;
    const values = JSON.parse((await encodeFetchRows([old])).toString()) as unknown[];
    expect(values.slice(16)).toEqual([
      '',
      '<urn:uuid:1>',
      'sha1:AAAA',
      '"e"',
      row.last_modified,
      '',
      'https://b.example/',
      '',
    ]);
  });
});
