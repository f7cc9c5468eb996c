import { describe, expect, it } from 'vitest';
import {
  agentsKey,
  crawlSettingsKey,
  heartbeatsOf,
  hostPolicyNoticeSchema,
  pagesStreamKey,
  parsedPageSchema,
  policyChannelKey,
  telemetryRowSchema,
  telemetryStreamKey,
  TELEMETRY_ROW_DEFAULTS,
} from './index';

describe('telemetry row', () => {
  it('has a default for each field added after the first agents, and only those', () => {
    expect(TELEMETRY_ROW_DEFAULTS).toEqual({
      record_type: '',
      record_id: '',
      payload_digest: '',
      etag: '',
      last_modified: '',
      change: '',
      duplicate_of: '',
      simhash: '',
    });
    const parsed = telemetryRowSchema.parse({
      url_fp: '0123456789abcdef',
      url: 'https://a.example/',
      host: 'a.example',
      fetched_at: 1_796_000_000_000,
      status: 0,
      error_code: 'timeout',
      bytes: 0,
      fetch_ms: 10,
      content_type: '',
      content_hash: '',
      depth: 0,
      agent_id: 'agent-1',
      warc_key: '',
      warc_offset: 0,
      warc_length: 0,
      redirect_to: '',
    });
    expect(parsed).toMatchObject(TELEMETRY_ROW_DEFAULTS);
  });
});

describe('shared fields', () => {
  it('bound a field alike in every message that has it', () => {
    const fetch = telemetryRowSchema.shape;
    const page = parsedPageSchema.shape;
    const long = (n: number) => 'x'.repeat(n);
    for (const [field, ok, tooLong] of [
      ['host', long(255), long(256)],
      ['content_type', long(255), long(256)],
      ['agent_id', long(128), long(129)],
      ['warc_key', long(1024), long(1025)],
    ] as const) {
      for (const schema of [fetch[field], page[field]]) {
        expect(schema.safeParse(ok).success).toBe(true);
        expect(schema.safeParse(tooLong).success).toBe(false);
      }
    }
    expect(fetch.url_fp.safeParse('0123456789ABCDEF').success).toBe(false);
    expect(page.url_fp.safeParse('0123456789abcdef').success).toBe(true);
  });
});

describe('heartbeats', () => {
  it('reads a ZRANGE WITHSCORES reply, leaving out what no agent wrote', () => {
    const reply = ['agent-1', '1796000000000', '', '1796000000001', 'agent-2', 'soon', 'agent-3'];
    expect(heartbeatsOf(reply)).toEqual([{ agent_id: 'agent-1', beat_ms: 1_796_000_000_000 }]);
  });
});

describe('policy notice', () => {
  it('takes the gap a rate limit gives, whole or not', () => {
    const notice = { host: 'a.example', blocked: false, gapMs: 1000 / 3 };
    expect(hostPolicyNoticeSchema.parse(notice)).toEqual(notice);
    expect(hostPolicyNoticeSchema.safeParse({ ...notice, gapMs: -1 }).success).toBe(false);
    expect(hostPolicyNoticeSchema.safeParse({ ...notice, host: '' }).success).toBe(false);
  });
});

describe('keys', () => {
  it('are distinct under one prefix, and the feed partitions each have a slot', () => {
    const keys = [
      telemetryStreamKey('p'),
      pagesStreamKey('p', 0),
      pagesStreamKey('p', 1),
      agentsKey('p'),
      policyChannelKey('p'),
      crawlSettingsKey('p'),
    ];
    expect(new Set(keys).size).toBe(keys.length);
    for (const k of keys) expect(k.startsWith('p:')).toBe(true);
    expect(pagesStreamKey('p', 3)).toBe('p:pages.parsed:{3}');
  });
});
