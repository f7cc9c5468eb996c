import { describe, expect, it } from 'vitest';
import { simhash64 } from '../dedupe';
import { HostQuality, type FetchObservation } from './host-quality';
import { DEFAULT_QUALITY_LIMITS } from './quality-limits';
import { urlShape, withoutParams } from './url-shape';

const H = 'http://a.test';

/** One fetched page, as the agent reports it: judged against its family, then observed. */
function see(q: HostQuality, o: Seen): { stale: boolean } {
  const judged = q.judgePage(
    o.url,
    { simhash: o.simhash, title: o.title ?? '', textShape: o.textShape },
    o.soft404,
  );
  q.observe(o);
  return judged;
}
const NOW = Date.UTC(2026, 11, 1, 12);

function words(seed: number, n = 120): string {
  // Deterministic distinct prose: different seeds give far-apart SimHashes.
  const out: string[] = [];
  let x = seed * 2654435761;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x ^ (x >>> 15), 2246822519) + i) >>> 0;
    out.push(`w${x % 5000}`);
  }
  return out.join(' ');
}

const CLOSE = DEFAULT_QUALITY_LIMITS.familyCloseAfter;
const calendarText = (month: string) =>
  `Events calendar for ${month}. No events are planned this month. Previous month Next month ` +
  'Home About Contact Events calendar shows upcoming gatherings meetings and talks in the area. '.repeat(
    4,
  );

interface Seen extends FetchObservation {
  textShape?: string;
}

function page(url: string, text: string, extra: Partial<Seen> = {}): Seen {
  return {
    url,
    status: 200,
    sha256: simhash64(text).padEnd(64, '0'),
    simhash: simhash64(text),
    duplicate: false,
    soft404: false,
    at: NOW,
    ...extra,
  };
}

describe('urlShape', () => {
  it('abstracts digit runs, ids and parameter values into a family and a template', () => {
    expect(urlShape(`${H}/calendar/2024/05`).family).toBe('/calendar/{n}/{n}');
    expect(urlShape(`${H}/cal/2024-05-17/`).family).toBe('/cal/{n}-{n}-{n}/');
    expect(urlShape(`${H}/item/3f9a8c7d2e1b`).family).toBe('/item/{id}');
    expect(urlShape(`${H}/list?page=4`).template).toBe('/list?page={n}');
    expect(urlShape(`${H}/items?size=m&color=red`).template).toBe('/items?color={v}&size={v}');
    expect(urlShape(`${H}/`).template).toBe('/');
  });

  it('removes named parameters, keeping the rest in order', () => {
    expect(withoutParams(`${H}/a?b=1&print=1&z=2`, new Set(['print']))).toBe(`${H}/a?b=1&z=2`);
    expect(withoutParams(`${H}/a?print=1`, new Set(['print']))).toBe(`${H}/a`);
  });
});

describe('HostQuality', () => {
  it('closes a family whose pages keep coming back near-identical, and no other', () => {
    const q = HostQuality.fresh(DEFAULT_QUALITY_LIMITS, NOW);
    expect(CLOSE).toBe(2);
    expect(see(q, page(`${H}/calendar/2024/01`, calendarText('2024/01'))).stale).toBe(false);
    // One repeat: throttled (links into it queue last), not closed.
    expect(see(q, page(`${H}/calendar/2024/02`, calendarText('2024/02'))).stale).toBe(true);
    expect(q.screen(`${H}/calendar/2024/03`)).toMatchObject({ kind: 'keep', throttled: true });
    expect(see(q, page(`${H}/calendar/2023/12`, calendarText('2023/12'))).stale).toBe(true);
    expect(q.screen(`${H}/calendar/2031/12`)).toEqual({ kind: 'drop', rule: 'template_exhausted' });
    // Real articles of one family differ: never stale, never closed, never throttled.
    for (let k = 0; k < 12; k++)
      expect(see(q, page(`${H}/news/p${k}.html`, words(k))).stale).toBe(false);
    expect(q.screen(`${H}/news/p99.html`)).toEqual({
      kind: 'keep',
      url: `${H}/news/p99.html`,
      throttled: false,
    });
  });

  it('keeps open a family of many distinct pages that meets a few near-copies in a row', () => {
    const q = HostQuality.fresh(DEFAULT_QUALITY_LIMITS, NOW);
    for (let k = 0; k < 10; k++) see(q, page(`${H}/news/p${k}.html`, words(k)));
    see(q, page(`${H}/news/p10.html`, words(3)));
    see(q, page(`${H}/news/p11.html`, words(3)));
    see(q, page(`${H}/news/p12.html`, words(3)));
    expect(q.screen(`${H}/news/p13.html`).kind).toBe('keep');
  });

  it('takes a page that differs from its family only in numbers as a repeat, however short', () => {
    const q = HostQuality.fresh(DEFAULT_QUALITY_LIMITS, NOW);
    const tiny = (m: number) =>
      page(`${H}/calendar/2024/${m}`, `Events 2024-${m} ${m - 1} ${m + 1}`, {
        textShape: 'ab'.repeat(8),
        title: `Events 2024-${m}`,
      });
    expect(see(q, tiny(5)).stale).toBe(false);
    expect(see(q, tiny(6)).stale).toBe(true);
    expect(see(q, tiny(4)).stale).toBe(true);
    expect(q.screen(`${H}/calendar/2024/9`).kind).toBe('drop');
  });

  it('closes a family whose pages are soft 404s', () => {
    const q = HostQuality.fresh(DEFAULT_QUALITY_LIMITS, NOW);
    const dead = (n: number) => page(`${H}/legacy/${n}.html`, 'x', { simhash: '', soft404: true });
    expect(see(q, dead(1)).stale).toBe(true);
    expect(q.screen(`${H}/legacy/3.html`).kind).toBe('keep');
    see(q, dead(2));
    expect(q.screen(`${H}/legacy/3.html`)).toEqual({ kind: 'drop', rule: 'soft_404' });
  });

  it('closes at its first page a family that looks like a closed one (a calendar in another URL form)', () => {
    const q = HostQuality.fresh(DEFAULT_QUALITY_LIMITS, NOW);
    for (const m of ['01', '02', '03'])
      see(q, page(`${H}/calendar/2024/${m}`, calendarText(`2024/${m}`)));
    expect(see(q, page(`${H}/events?month=2024-07`, calendarText('2024-07'))).stale).toBe(true);
    expect(q.screen(`${H}/events?month=2024-08`)).toEqual({
      kind: 'drop',
      rule: 'template_exhausted',
    });
  });

  it('caps pagers and facet combinations', () => {
    const q = HostQuality.fresh({ ...DEFAULT_QUALITY_LIMITS, maxFacetCombos: 3 }, NOW);
    expect(q.screen(`${H}/list?page=50`, `${H}/list?page=49`).kind).toBe('keep');
    expect(q.screen(`${H}/list?page=51`, `${H}/list?page=50`)).toEqual({
      kind: 'drop',
      rule: 'pager_depth',
    });
    expect(q.screen(`${H}/blog/page/51/`, `${H}/blog/page/52/`)).toEqual({
      kind: 'drop',
      rule: 'pager_depth',
    });
    // Numbered pages reached otherwise are no pager: kept.
    expect(q.screen(`${H}/list?page=51`).kind).toBe('keep');
    expect(q.screen(`${H}/list?page=120`, `${H}/list?page=12`).kind).toBe('keep');
    expect(q.screen(`${H}/list?page=120`, `${H}/other?page=119`).kind).toBe('keep');
    expect(q.screen(`${H}/c?a=1&b=2&c=3&d=4&e=5`)).toEqual({
      kind: 'drop',
      rule: 'facet_explosion',
    });
    const combos = ['color=r', 'size=m', 'brand=x'];
    combos.forEach((c, i) => see(q, page(`${H}/catalog?${c}`, words(100 + i))));
    expect(q.screen(`${H}/catalog?brand=y`).kind).toBe('keep'); // a combination already used
    expect(q.screen(`${H}/catalog?color=r&size=m`)).toEqual({
      kind: 'drop',
      rule: 'facet_explosion',
    });
  });

  it('learns a parameter that does not change the body and strips it; one that does is kept for good', () => {
    const q = HostQuality.fresh(DEFAULT_QUALITY_LIMITS, NOW);
    q.observe(page(`${H}/doc/a.html`, words(1)));
    q.observe(page(`${H}/doc/a.html?print=1`, words(1)));
    expect(q.noopParams()).toEqual(['print']);
    expect(q.screen(`${H}/doc/b.html?lang=en&print=1`)).toEqual({
      kind: 'strip',
      url: `${H}/doc/b.html?lang=en`,
      params: ['print'],
    });
    // Values of one parameter that give different bodies: real; equal bodies teach nothing
    // (a calendar's months look alike, yet `month` is no no-op).
    q.observe(page(`${H}/list?lang=en`, words(2)));
    q.observe(page(`${H}/list?lang=de`, words(3)));
    expect(q.screen(`${H}/list?lang=fr`).kind).toBe('keep');
    q.observe(page(`${H}/events?month=2024-01`, words(7)));
    q.observe(page(`${H}/events?month=2024-02`, words(7)));
    expect(q.screen(`${H}/events?month=2024-03`).kind).toBe('keep');
    // A variant fetched before its base is learned too (the base compares with the variant).
    q.observe(page(`${H}/doc/c.html?sort=asc`, words(4)));
    q.observe(page(`${H}/doc/c.html`, words(4)));
    expect(q.noopParams().sort()).toEqual(['print', 'sort']);
    // One URL whose sort changes its body makes sort real for good.
    q.observe(page(`${H}/doc/d.html?sort=desc`, words(5)));
    q.observe(page(`${H}/doc/d.html?sort=asc`, words(6)));
    expect(q.noopParams()).toEqual(['print']);
  });

  it('recognises soft 404s by the probe answer', () => {
    const q = HostQuality.fresh(DEFAULT_QUALITY_LIMITS, NOW);
    expect(q.needsProbe()).toBe(true);
    const notFound = (p: string) =>
      `Sorry, the page ${p} could not be found. ` +
      'Try the search box or go back home. '.repeat(3);
    q.setProbe(200, simhash64(notFound('/zx81-probe')), 'Page not found');
    expect(q.needsProbe()).toBe(false);
    expect(q.isSoft404(200, simhash64(notFound('/old/page-3.html')))).toBe(true);
    // A bare echo moves the SimHash further; the same title still tells.
    const bare = (p: string) => `Sorry, the page ${p} could not be found. Go back home.`;
    const far = HostQuality.fresh(DEFAULT_QUALITY_LIMITS, NOW);
    far.setProbe(200, simhash64(bare('/zx81-probe')), 'Page not found');
    expect(far.isSoft404(200, simhash64(bare('/old/page-3.html')), 'Page Not Found')).toBe(true);
    expect(far.isSoft404(200, simhash64(words(9)), 'Page not found')).toBe(false);
    expect(q.isSoft404(200, simhash64(words(9)))).toBe(false);
    expect(q.isSoft404(404, simhash64(notFound('/x')))).toBe(false);
    const real404 = HostQuality.fresh(DEFAULT_QUALITY_LIMITS, NOW);
    real404.setProbe(404, '');
    expect(real404.needsProbe()).toBe(false);
    expect(real404.isSoft404(200, simhash64(notFound('/x')))).toBe(false);
  });

  it('cuts the budget of a host whose bodies are mostly exact duplicates, until the next day', () => {
    const q = HostQuality.fresh(DEFAULT_QUALITY_LIMITS, NOW);
    for (let i = 0; i < 19; i++)
      q.observe(page(`${H}/x/${i}`, words(i), { duplicate: i % 4 !== 0 }));
    expect(q.budgetLeft(NOW)).toBeNull();
    q.observe(page(`${H}/x/19`, words(19), { duplicate: true }));
    // 20 fetches, 15 duplicates: the day's allowance becomes max(20, 2 × 5 distinct) = 20.
    expect(q.budgetLeft(NOW)).toBe(0);
    expect(q.budgetLeft(NOW + 86_400_000)).toBeNull();
  });

  it('round-trips through JSON and starts afresh from anything invalid', () => {
    const q = HostQuality.fresh(DEFAULT_QUALITY_LIMITS, NOW);
    q.observe(page(`${H}/a`, words(1)));
    q.observe(page(`${H}/a?ref=nav`, words(1)));
    expect(q.dirty).toBe(true);
    const back = HostQuality.parse(q.serialize(), DEFAULT_QUALITY_LIMITS, NOW);
    expect(back.noopParams()).toEqual(['ref']);
    expect(back.dirty).toBe(false);
    expect(HostQuality.parse('{"v":2}').noopParams()).toEqual([]);
    expect(HostQuality.parse('not json').needsProbe()).toBe(true);
  });

  it('stays bounded whatever the host serves', () => {
    const q = HostQuality.fresh(DEFAULT_QUALITY_LIMITS, NOW);
    for (let i = 0; i < 3000; i++)
      q.observe(page(`${H}/s${i}x/t${i}y?q${i % 7}=${i}`, words(i, 20)));
    expect(q.serialize().length).toBeLessThan(200_000);
    expect(HostQuality.parse(q.serialize()).serialize()).toBe(q.serialize());
  });
});
