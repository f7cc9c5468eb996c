import { describe, expect, it } from 'vitest';
import type { HistoryRow } from './inspect-url.types';
import { budgetLeftToday } from './inspect-url';
import { urlVerdict, type UrlFacts } from './url-verdict';

const NOW = Date.UTC(2026, 10, 30, 12);
const TODAY = Math.floor(NOW / 86_400_000);

const facts = (over: Partial<UrlFacts> = {}): UrlFacts => ({
  history: [],
  blocked: false,
  seen: true,
  queuedOnHost: 4,
  deadLetter: null,
  trapRule: null,
  qualityRule: null,
  recrawlDueAt: null,
  hostNextAt: 0,
  budgetLeft: null,
  now: NOW,
  ...over,
});

const row = (over: Partial<HistoryRow> = {}): HistoryRow => ({
  fetched_at: '2026-11-30T11:00:00.000Z',
  status: 200,
  error_code: '',
  fetch_ms: 12,
  bytes: 1000,
  change: 'new',
  record_type: 'response',
  warc_key: 'crawl/x.warc.gz',
  warc_offset: 0,
  warc_length: 500,
  duplicate_of: '',
  ...over,
});

describe('urlVerdict', () => {
  it('a fetch whose body repeated another URL: "duplicate", naming the original', () => {
    const v = urlVerdict(
      facts({ history: [row({ record_type: 'revisit', duplicate_of: 'http://a.example/' })] }),
    );
    expect(v).toMatchObject({ fetched: true, reason: 'duplicate' });
    expect(v.detail).toContain('http://a.example/');
    expect(urlVerdict(facts({ history: [row()] })).reason).toBe('fetched');
  });

  it('a soft 404: fetched, reason "soft_404"', () => {
    const v = urlVerdict(facts({ history: [row({ error_code: 'soft_404' })] }));
    expect(v).toMatchObject({ fetched: true, reason: 'soft_404' });
  });

  it('a URL a crawl-quality rule keeps out, though seen: "trap", naming the rule', () => {
    const v = urlVerdict(facts({ seen: true, qualityRule: 'template_exhausted' }));
    expect(v.reason).toBe('trap');
    expect(v.detail).toContain('template_exhausted');
    // A fetch is stronger evidence than a rule learned later.
    expect(urlVerdict(facts({ history: [row()], qualityRule: 'noop_param' })).reason).toBe(
      'fetched',
    );
  });

  it('queued behind a spent daily budget: "budget"', () => {
    const v = urlVerdict(facts({ budgetLeft: 0, hostNextAt: NOW + 3_600_000 }));
    expect(v).toMatchObject({ fetched: false, reason: 'budget' });
    expect(v.detail).toMatch(/daily page budget/);
  });

  it('queued while the host waits for its next turn: "not_yet_due", with the time', () => {
    const v = urlVerdict(facts({ budgetLeft: 10, hostNextAt: NOW + 60_000 }));
    expect(v).toMatchObject({ fetched: false, reason: 'not_yet_due' });
    expect(v.detail).toContain(new Date(NOW + 60_000).toISOString());
  });

  it('queued with the host ready: "queued"; failed attempts are said', () => {
    expect(urlVerdict(facts({ hostNextAt: NOW - 1 })).reason).toBe('queued');
    const v = urlVerdict(facts({ history: [row({ status: 500, record_type: '' })] }));
    expect(v.reason).toBe('queued');
    expect(v.detail).toMatch(/1 attempt\(s\) without a 2xx\/3xx answer/);
  });
});

describe('budgetLeftToday', () => {
  it('counts today’s pages against the host’s budget, else the default', () => {
    const today = { budget_day: String(TODAY), budget_used: '7' };
    expect(budgetLeftToday(today, 10, NOW)).toBe(3);
    expect(budgetLeftToday({ ...today, daily_budget: '7' }, 10, NOW)).toBe(0);
    expect(budgetLeftToday({ budget_day: String(TODAY - 1), budget_used: '9' }, 10, NOW)).toBe(10);
  });

  it('is unlimited when allowlisted or set to 0', () => {
    expect(budgetLeftToday({ allowlisted: '1', budget_day: String(TODAY) }, 10, NOW)).toBeNull();
    expect(budgetLeftToday({ daily_budget: '0' }, 10, NOW)).toBeNull();
  });
});
