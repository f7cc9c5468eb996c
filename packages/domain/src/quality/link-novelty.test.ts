import { describe, expect, it } from 'vitest';
import { simhash64 } from '../dedupe';
import { urlFingerprint } from '../url';
import { HostQuality } from './host-quality';
import { countNovelty, LinkMemory } from './link-novelty';
import { DEFAULT_QUALITY_LIMITS, type QualityLimits } from './quality-limits';

const HOST = 'a.test';
const H = `http://${HOST}`;
const NOW = Date.UTC(2026, 11, 1, 12);
const MIN_PAGES = DEFAULT_QUALITY_LIMITS.noveltyMinPages;

const link = (url: string) => ({ url, urlFp: urlFingerprint(url), host: new URL(url).hostname });

/** Distinct prose per seed: far-apart SimHashes, so only the novelty rule can judge the pages. */
function words(seed: number, n = 120): string {
  const out: string[] = [];
  let x = seed * 2654435761;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x ^ (x >>> 15), 2246822519) + i) >>> 0;
    out.push(`w${x % 5000}`);
  }
  return out.join(' ');
}

/** The site's fixed navigation, linked from every page. */
const NAV = ['/', '/about', '/contact', '/news', '/shop', '/help'].map((p) => `${H}${p}`);

/** A host's quality state and its link memory, as the agent holding its lease keeps them. */
class Crawl {
  readonly q: HostQuality;
  readonly memory = new LinkMemory();
  private seed = 0;
  constructor(limits: QualityLimits = DEFAULT_QUALITY_LIMITS) {
    this.q = HostQuality.fresh(limits, NOW);
    // The home page, fetched first: the navigation is known from then on.
    this.follow(`${H}/`, NAV);
  }
  /** A fetched page with distinct text and these links: whether it repeated its family. */
  follow(url: string, links: string[]): boolean {
    const novelty = countNovelty(this.memory, link(url), links.map(link));
    const text = words(++this.seed);
    return this.q.judgePage(url, { simhash: simhash64(text), title: '', novelty }, false).stale;
  }
  /** The rules' verdict on a URL of the host found on `from`. */
  screen(url: string, from = `${H}/`) {
    return this.q.screen(url, from);
  }
}

const month = (i: number) => `${H}/events/${2000 + Math.floor(i / 12)}/${(i % 12) + 1}`;

describe('LinkMemory', () => {
  it('tells new links from known ones and keeps links met again past its generations', () => {
    const m = new LinkMemory(4);
    const fp = (i: number) => urlFingerprint(`${H}/p${i}`);
    expect(m.see(fp(0))).toBe(true);
    expect(m.see(fp(0))).toBe(false);
    // Many other links pass; the one met on every page stays known.
    for (let i = 1; i < 40; i++) {
      expect(m.see(fp(i))).toBe(true);
      expect(m.see(fp(0))).toBe(false);
    }
    // One met once long ago is forgotten: new again (the rule's safe side).
    expect(m.see(fp(1))).toBe(true);
    expect(m.size).toBeLessThanOrEqual(8);
  });

  it('counts a page’s new links inside and outside its family, each once, not the page itself', () => {
    const m = new LinkMemory();
    const page = link(month(0));
    const n = countNovelty(m, page, [
      link(month(1)),
      link(month(1)),
      link(month(0)),
      link(`${H}/about`),
      link('http://b.test/x'),
    ]);
    // The other family's link names it (the other host's does not).
    expect(n).toEqual({ inside: 1, outside: 2, entries: ['/about'] });
    // The same links again: nothing new.
    expect(countNovelty(m, page, [link(month(1)), link(`${H}/about`)])).toEqual({
      inside: 0,
      outside: 0,
      entries: [],
    });
  });
});

describe('the novelty rule', () => {
  it('closes a family whose pages link only their next page and the fixed navigation', () => {
    const c = new Crawl();
    for (let i = 1; i < MIN_PAGES; i++) {
      // Too few pages to judge: followed as any other family.
      expect(c.follow(month(i), [month(i + 1), month(i - 1), ...NAV])).toBe(false);
      expect(c.screen(month(i + 1))).toMatchObject({ kind: 'keep', throttled: false });
    }
    expect(c.follow(month(MIN_PAGES), [month(MIN_PAGES + 1), ...NAV])).toBe(true);
    expect(c.q.closedFamilies()).toBe(1);
    expect(c.screen(month(MIN_PAGES + 1))).toEqual({ kind: 'drop', rule: 'template_exhausted' });
    // The rest of the host is untouched.
    expect(c.screen(`${H}/news/latest`)).toMatchObject({ kind: 'keep' });
  });

  it('keeps a pager whose pages list new items, however long', () => {
    const c = new Crawl();
    for (let n = 1; n <= 5 * MIN_PAGES; n++) {
      const items = [0, 1, 2, 3, 4].map((j) => `${H}/item/${n * 5 + j}.html`);
      expect(c.follow(`${H}/archive/page/${n}/`, [`${H}/archive/page/${n + 1}/`, ...items])).toBe(
        false,
      );
    }
    expect(c.q.closedFamilies()).toBe(0);
  });

  it('never judges the last pages of a finite site, whose links are all known', () => {
    const c = new Crawl();
    const articles = Array.from({ length: 3 * MIN_PAGES }, (_, i) => `${H}/article/${i}`);
    // The listing linked every article first.
    c.follow(`${H}/news`, articles);
    for (const [i, a] of articles.entries())
      expect(c.follow(a, [articles[(i + 7) % articles.length]!, ...NAV])).toBe(false);
    expect(c.q.closedFamilies()).toBe(0);
  });

  it('never judges a family whose pages are found on other pages, however little they bring', () => {
    const c = new Crawl();
    const article = (i: number) => `${H}/article/${i}`;
    const list = (n: number) => `${H}/list?page=${n}`;
    // A listing names ten articles a page; each article links three others not listed yet and
    // the navigation: nothing new outside its family, ever. Pages are fetched as found.
    const queue = [list(1)];
    let articles = 0;
    for (let step = 0; queue.length > 0 && articles < 10 * MIN_PAGES; step++) {
      const url = queue.shift()!;
      if (url.includes('/list')) {
        const n = Number(url.split('=')[1]);
        const items = Array.from({ length: 10 }, (_, j) => article(n * 10 + j));
        c.follow(url, [list(n + 1), ...items]);
        queue.push(...items, list(n + 1));
      } else {
        const i = Number(url.split('/').pop());
        const related = [1, 2, 3].map((j) => article(100_000 + i * 3 + j));
        expect(c.follow(url, [...related, ...NAV])).toBe(false);
        articles++;
      }
    }
    expect(articles).toBe(10 * MIN_PAGES);
    expect(c.q.closedFamilies()).toBe(0);
  });

  it('never judges a family whose pages come from a sitemap', () => {
    const c = new Crawl();
    // Articles linking three others each and the navigation, queued from the host's sitemap.
    for (let i = 1; i <= 5 * MIN_PAGES; i++) {
      const url = `${H}/article/${i}`;
      const related = [1, 2, 3].map((j) => `${H}/article/${1000 + i * 3 + j}`);
      const novelty = countNovelty(
        c.memory,
        { ...link(url), external: true },
        [...related, ...NAV].map(link),
      );
      const simhash = simhash64(words(10_000 + i));
      expect(c.q.judgePage(url, { simhash, title: '', novelty }, false).stale).toBe(false);
    }
    expect(c.q.closedFamilies()).toBe(0);
  });

  it('keeps a family whose pages bring a new link elsewhere now and then', () => {
    const c = new Crawl();
    // Every fourth article cites a new source; the others only link the next article.
    for (let i = 1; i <= 5 * MIN_PAGES; i++) {
      const source = i % 4 === 0 ? [`http://source${i}.test/`] : [];
      c.follow(`${H}/article/${i}`, [`${H}/article/${i + 1}`, ...NAV, ...source]);
    }
    expect(c.q.closedFamilies()).toBe(0);
  });

  it('throttles a large family once its pages stop bringing novelty, and closes it when the dry run is half of it', () => {
    const c = new Crawl();
    const url = (i: number) => `${H}/thread/${i}`;
    const users = 40;
    for (let i = 1; i <= users; i++) c.follow(url(i), [url(i + 1), `${H}/user/${i}`]);
    expect(c.screen(url(users + 1))).toMatchObject({ kind: 'keep', throttled: false });
    // From now on only the next thread and a known user: throttled at once, closed when these
    // pages are as many as the ones before.
    let i = users + 1;
    for (; c.q.closedFamilies() === 0; i++) {
      expect(c.follow(url(i), [url(i + 1), `${H}/user/1`])).toBe(true);
      if (c.q.closedFamilies() === 0)
        expect(c.screen(url(i + 1))).toMatchObject({ kind: 'keep', throttled: true });
    }
    expect(i - 1 - users).toBe(users);
    expect(c.screen(url(i))).toEqual({ kind: 'drop', rule: 'template_exhausted' });
  });

  it('respects its thresholds', () => {
    // Fewer pages before judging.
    const early = new Crawl({ ...DEFAULT_QUALITY_LIMITS, noveltyMinPages: 5 });
    for (let i = 1; i < 5; i++) expect(early.follow(month(i), [month(i + 1), ...NAV])).toBe(false);
    expect(early.follow(month(5), [month(6), ...NAV])).toBe(true);
    expect(early.q.closedFamilies()).toBe(1);
    // More new links needed: two new ones elsewhere are not enough.
    const strict = new Crawl({ ...DEFAULT_QUALITY_LIMITS, noveltyMinLinks: 3, noveltyMinPages: 5 });
    for (let i = 1; i <= 5; i++)
      strict.follow(month(i), [month(i + 1), `${H}/tag/a${i}`, `${H}/tag/b${i}`]);
    expect(strict.q.closedFamilies()).toBe(1);
    const three = new Crawl({ ...DEFAULT_QUALITY_LIMITS, noveltyMinLinks: 3, noveltyMinPages: 5 });
    for (let i = 1; i <= 5 * 5; i++)
      three.follow(month(i), [month(i + 1), `${H}/tag/a${i}`, `${H}/tag/b${i}`, `${H}/tag/c${i}`]);
    expect(three.q.closedFamilies()).toBe(0);
    // 0: the rule is off.
    const off = new Crawl({ ...DEFAULT_QUALITY_LIMITS, noveltyMinLinks: 0, noveltyMinPages: 5 });
    for (let i = 1; i <= 50; i++) expect(off.follow(month(i), [month(i + 1), ...NAV])).toBe(false);
    expect(off.q.closedFamilies()).toBe(0);
  });

  it('keeps what it counted across a save', () => {
    const c = new Crawl({ ...DEFAULT_QUALITY_LIMITS, noveltyMinPages: 6 });
    for (let i = 1; i <= 5; i++) c.follow(month(i), [month(i + 1), ...NAV]);
    const back = HostQuality.parse(
      c.q.serialize(),
      { ...DEFAULT_QUALITY_LIMITS, noveltyMinPages: 6 },
      NOW,
    );
    const novelty = countNovelty(c.memory, link(month(6)), [link(month(7))]);
    back.judgePage(month(6), { simhash: simhash64(words(999)), title: '', novelty }, false);
    expect(back.closedFamilies()).toBe(1);
  });
});
