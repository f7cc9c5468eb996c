import { describe, expect, it } from 'vitest';
import { DEFAULT_QUALITY_LIMITS, HostQuality } from '@crawler/domain/quality';
import { CompiledBlockRules } from '@crawler/domain/traps';
import type { HistoryRow } from './inspect-url.types';
import { budgetLeftToday } from './inspect-url';
import { pagerSources, qualityRuleOf } from './host-quality-reader';
import { urlVerdict, type UrlFacts } from './url-verdict';

const NOW = Date.UTC(2026, 10, 30, 12);
const TODAY = Math.floor(NOW / 86_400_000);

const facts = (over: Partial<UrlFacts> = {}): UrlFacts => ({
  history: [],
  blocked: false,
  blockRule: null,
  seen: true,
  queuedOnHost: 4,
  deadLetter: null,
  trapRule: null,
  qualityRule: null,
  recrawlDueAt: null,
  hostNextAt: 0,
  budgetLeft: null,
  duplicateBudgetLeft: null,
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

  it('queued behind a budget cut for duplicate bodies, used up: "budget", naming duplicate_budget', () => {
    // Agents end the host's leases until the next UTC day: its next turn is then.
    const cut = facts({ budgetLeft: 10, duplicateBudgetLeft: 0, hostNextAt: NOW + 3_600_000 });
    const v = urlVerdict(cut);
    expect(v).toMatchObject({ fetched: false, reason: 'budget' });
    expect(v.detail).toContain('duplicate_budget');
    expect(v.detail).toMatch(/next UTC day/);
    // A cut not used up yet: the host's next turn is all it waits for.
    expect(urlVerdict({ ...cut, duplicateBudgetLeft: 3 }).reason).toBe('not_yet_due');
  });

  it('a URL an operator block pattern matches: "blocked", naming the pattern and its policy', () => {
    const rules = new CompiledBlockRules([
      { host: '*.shop.test', blocked: null, patterns: ['/private/', '*.pdf'] },
      { host: 'bad.test', blocked: true, patterns: [] },
    ]);
    const hit = (url: string) => rules.match(url, new URL(url).hostname);
    expect(hit('http://www.shop.test/public/a')).toBeNull();
    const pattern = hit('http://www.shop.test/docs/a.pdf');
    expect(pattern).toMatchObject({ kind: 'pattern', scope: '*.shop.test', pattern: '*.pdf' });
    // Queued before the pattern was added: dropped at its lease, so not "queued".
    const v = urlVerdict(facts({ seen: true, blockRule: pattern }));
    expect(v).toMatchObject({ fetched: false, reason: 'blocked' });
    expect(v.detail).toContain('*.pdf');
    expect(v.detail).toContain('*.shop.test');
    expect(urlVerdict(facts({ seen: false, blockRule: pattern })).reason).toBe('blocked');
    // Fetched before it: still "fetched", with the pattern that keeps it from a re-crawl.
    const fetched = urlVerdict(facts({ history: [row()], blockRule: pattern }));
    expect(fetched.reason).toBe('fetched');
    expect(fetched.detail).toContain('not fetched again');
    // A blocked host: named with its policy.
    const host = hit('http://bad.test/a');
    expect(host).toMatchObject({ kind: 'host', scope: 'bad.test' });
    const b = urlVerdict(facts({ blockRule: host }));
    expect(b.reason).toBe('blocked');
    expect(b.detail).toContain('policy of bad.test');
  });

  it('never queued and no rule of its own: "unknown", saying a page-level drop leaves no record', () => {
    const v = urlVerdict(facts({ seen: false }));
    expect(v).toMatchObject({ fetched: false, reason: 'unknown' });
    expect(v.detail).toMatch(/never queued/);
    expect(v.detail).toMatch(/too many hops or too deep/);
    expect(v.detail).toMatch(/no record/);
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

describe('qualityRuleOf', () => {
  const limits = { ...DEFAULT_QUALITY_LIMITS, maxPagerDepth: 50 };

  it('finds a pager step past the cap for a URL never queued, judged from page N − 1', () => {
    const q = HostQuality.fresh(limits, NOW);
    expect(qualityRuleOf(q, 'http://a.test/list?page=52', { asLink: true })).toBe('pager_depth');
    expect(qualityRuleOf(q, 'http://a.test/blog/page/60/', { asLink: true })).toBe('pager_depth');
    expect(qualityRuleOf(q, 'http://a.test/list?page=50', { asLink: true })).toBeNull();
    // Not a pager parameter: a number of another kind is no page.
    expect(qualityRuleOf(q, 'http://a.test/item?id=5200', { asLink: true })).toBeNull();
    // A queued URL got in from elsewhere: a numbered page linked from outside its pager is fetched.
    expect(qualityRuleOf(q, 'http://a.test/list?page=52')).toBeNull();
  });

  it('lists page N − 1 for every number of the URL', () => {
    expect(pagerSources('http://a.test/y/2024/page/3?page=10&q=x&n=0')).toEqual([
      'http://a.test/y/2023/page/3?page=10&q=x&n=0',
      'http://a.test/y/2024/page/2?page=10&q=x&n=0',
      'http://a.test/y/2024/page/3?page=9&q=x&n=0',
    ]);
    expect(pagerSources('http://a.test/')).toEqual([]);
  });

  it("a host's duplicate budget, cut and used up, is what its queued URLs wait for", () => {
    const q = HostQuality.fresh(limits, NOW);
    for (let i = 0; i < limits.dupMinFetches; i++)
      q.observe({
        url: `http://a.test/p${i}`,
        status: 200,
        sha256: 'a'.repeat(64),
        simhash: '',
        duplicate: i > 0,
        soft404: false,
        at: NOW,
      });
    expect(q.budgetLeft(NOW)).toBe(0);
    const v = urlVerdict(
      facts({ duplicateBudgetLeft: q.budgetLeft(NOW), hostNextAt: NOW + 3_600_000 }),
    );
    expect(v.reason).toBe('budget');
    expect(v.detail).toContain('duplicate_budget');
  });
});
