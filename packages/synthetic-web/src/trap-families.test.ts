// The SimHash is the crawler's own (packages/domain), imported here through the workspace only:
// declaring it would make a dependency cycle (the domain's tests use this package).
import { hammingDistance, simhash64 } from '@crawler/domain/dedupe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTrapPathKey } from './canonical.js';
import { scoreCrawl, startSyntheticWeb, type SiteInfo, type SyntheticWeb } from './index.js';
import { assignHosts, TRAP_FAMILY_FEATURES } from './model/assign.js';
import { PlanCache } from './model/plan.js';
import { httpGet, type RawResponse } from './testing/http-get.js';
import { extractLinks } from './testing/reference-crawler.js';
import { hasNoopParam, hasSessionId } from './trap-patterns.js';

/** Visible text, about as the crawler's parser reads it (head left out, tags removed). */
function visibleText(html: string): string {
  return html
    .replace(/<head>[\s\S]*<\/head>/, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

const decode = (href: string): string => href.replace(/&amp;/g, '&');
const hrefsOf = (html: string): string[] =>
  [...html.matchAll(/href=["']([^"']*)["']/g)].map((m) => decode(m[1] ?? ''));

describe('trap families', () => {
  let web: SyntheticWeb;
  const get = (h: SiteInfo, path: string): Promise<RawResponse> =>
    httpGet(h.ip, web.port, h.host, path);
  const html = async (h: SiteInfo, path: string): Promise<string> =>
    (await get(h, path)).body.toString('utf8');
  const withFeature = (f: string): SiteInfo[] => web.hosts.filter((h) => h.features.includes(f));
  const simhashOf = async (h: SiteInfo, path: string): Promise<string> =>
    simhash64(visibleText(await html(h, path)));
  /** Largest SimHash distance between any two of the pages. */
  const spread = async (h: SiteInfo, paths: string[]): Promise<number> => {
    const hashes = await Promise.all(paths.map((p) => simhashOf(h, p)));
    let max = 0;
    for (let i = 0; i < hashes.length; i++)
      for (let j = i + 1; j < hashes.length; j++)
        max = Math.max(max, hammingDistance(hashes[i] as string, hashes[j] as string));
    return max;
  };
  const homeLink = async (h: SiteInfo, pattern: RegExp): Promise<string> => {
    const link = hrefsOf(await html(h, '/')).find((x) => pattern.test(x));
    if (link === undefined) throw new Error(`no link like ${pattern} on ${h.host}`);
    return link;
  };

  beforeAll(async () => {
    web = await startSyntheticWeb({ hosts: 60, seed: 1, hostile: false, trapFamilies: true });
  });
  afterAll(async () => {
    await web.close();
  });

  it('puts each family on some normal hosts, never no-op parameters with robots wildcards', () => {
    for (const f of [...TRAP_FAMILY_FEATURES, 'trap-session'])
      expect(withFeature(f).length, f).toBeGreaterThanOrEqual(1);
    for (const h of withFeature('noop-params')) expect(h.robots).not.toBe('wildcards');
    for (const f of TRAP_FAMILY_FEATURES)
      for (const h of withFeature(f)) {
        expect(h.kind).toBe('normal');
        expect(['5xx', 'crawl-delay']).not.toContain(h.robots);
      }
  });

  it('leaves every other role of every host as it is without them', () => {
    const plain = assignHosts(5, 300, 200, true, false);
    const families = assignHosts(5, 300, 200, true, true);
    const added = new Set<string>([...TRAP_FAMILY_FEATURES, 'trap-session']);
    families.forEach((h, i) => {
      const p = plain[i];
      expect({
        ...h,
        features: h.features.filter((f) => !added.has(f)),
        sessionInPath: false,
      }).toEqual({ ...p, features: p?.features.filter((f) => !added.has(f)) });
    });
    const share = (f: string): number =>
      families.filter((h) => (h.features as string[]).includes(f)).length / families.length;
    for (const f of TRAP_FAMILY_FEATURES) {
      expect(share(f), f).toBeGreaterThan(0.02);
      expect(share(f), f).toBeLessThan(0.12);
    }
  });

  it('keeps trap and variant URLs out of the manifest, and the pager and catalog in it', () => {
    const m = web.manifest();
    for (const u of m.expected) {
      const key = u.slice(u.indexOf('/', 8));
      expect(isTrapPathKey(key) || hasNoopParam(key) || hasSessionId(key), u).toBe(false);
    }
    const exp = new Set(m.expected);
    for (const h of withFeature('trap-facets'))
      expect(exp.has(`http://${h.host}:${web.port}/catalog`)).toBe(true);
    for (const h of withFeature('trap-pager').filter((x) => x.robots !== '5xx')) {
      const pages = m.expected.filter((u) => u.includes(`${h.host}:`) && u.includes('/archive'));
      expect(pages, h.host).toHaveLength(3);
    }
  });

  it('keeps every expected page within 3 same-host hops of a home page or a cross-host link', () => {
    const headers = assignHosts(1, 60, 200, false, true);
    const plans = new PlanCache(1, headers);
    const best = new Map<string, number>();
    const queue: Array<[number, string, number]> = headers.map((h) => [h.index, '/', 0]);
    for (let i = 0; i < queue.length; i++) {
      const [host, path, hops] = queue[i] as [number, string, number];
      const key = `${host} ${path}`;
      if ((best.get(key) ?? Infinity) <= hops || isTrapPathKey(path)) continue;
      best.set(key, hops);
      const plan = plans.get(host);
      let r = plan.resources.get(path);
      if (r?.type === 'redirect') queue.push([r.target.host, r.target.path, hops]);
      if (r?.type === 'copy') r = plan.resources.get(r.of);
      if (r?.type !== 'page') continue;
      for (const l of r.links) queue.push([l.host, l.path, l.host === host ? hops + 1 : 0]);
    }
    for (const u of web.manifest().expected) {
      const url = new URL(u);
      const host = headers.findIndex((h) => h.host === url.hostname);
      expect(best.get(`${host} ${url.pathname}${url.search}`), u).toBeLessThanOrEqual(3);
    }
  });

  it('is the same web for the same seed, session ids included (counted per host)', async () => {
    const opts = { hosts: 60, seed: 1, hostile: false, trapFamilies: true };
    const [a, b] = await Promise.all([startSyntheticWeb(opts), startSyntheticWeb(opts)]);
    try {
      const norm = (s: string, port: number): string => s.replaceAll(String(port), 'PORT');
      expect(norm(JSON.stringify(a.manifest()), a.port)).toEqual(
        norm(JSON.stringify(b.manifest()), b.port),
      );
      const paths: Record<string, string> = {
        'trap-session': '/',
        'soft-404': '/legacy/77.html',
        'trap-facets': '/catalog?color=red',
        'noop-params': '/?view=full',
        'trap-pager': '/archive?page=7',
      };
      // Other hosts first on one web only: a host's session ids do not depend on them.
      await httpGet(web.hosts[0]?.ip ?? '', a.port, web.hosts[0]?.host ?? '', '/');
      for (const [f, path] of Object.entries(paths)) {
        const h = withFeature(f)[0] as SiteInfo;
        const [ra, rb] = await Promise.all([
          httpGet(h.ip, a.port, h.host, path),
          httpGet(h.ip, b.port, h.host, path),
        ]);
        expect(norm(ra.body.toString(), a.port), f).toEqual(norm(rb.body.toString(), b.port));
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('calendars: prev/next forever in several URL forms, siblings near-identical', async () => {
    const forms = new Set<string>();
    for (const h of withFeature('trap-calendars')) {
      let path = await homeLink(h, /^\/(events\?month=|cal\/|diary\/)/);
      forms.add(path.split(/[?/]/)[1] ?? '');
      const seen = [path];
      for (let i = 0; i < 25; i++) {
        const r = await get(h, path);
        expect(r.status, path).toBe(200);
        const links = hrefsOf(r.body.toString());
        expect(links).toContain('/');
        path = links[1] as string; // next
        seen.push(path);
      }
      expect(new Set(seen).size).toBe(26);
      expect(await spread(h, seen.slice(0, 4))).toBeLessThanOrEqual(8);
      expect(await spread(h, [seen[0] as string, '/'])).toBeGreaterThan(10);
    }
    expect(forms.size).toBeGreaterThanOrEqual(1);
  });

  it('pager: pages 1-3 list tree pages, later pages say "no more entries" and link on', async () => {
    const exp = new Set(web.manifest().expected);
    for (const h of withFeature('trap-pager')) {
      const first = await homeLink(h, /^\/archive/);
      const page = (n: number): string =>
        first.includes('?') ? `/archive?page=${n}` : `/archive/page/${n}/`;
      for (let n = 1; n <= 3; n++) {
        const links = hrefsOf(await html(h, page(n)));
        expect(links).toContain(page(n + 1));
        const base = `http://${h.host}:${web.port}`;
        expect(links.filter((l) => exp.has(`${base}${l}`)).length).toBeGreaterThanOrEqual(2);
      }
      for (const n of [4, 5, 999]) {
        const body = await html(h, page(n));
        expect(body).toContain('No more entries.');
        expect(hrefsOf(body)).toContain(page(n + 1));
      }
      expect(await spread(h, [page(4), page(5), page(999)])).toBeLessThanOrEqual(4);
    }
  });

  it('facets: the catalog opens filtered views whose links combine filters in varying orders', async () => {
    for (const h of withFeature('trap-facets')) {
      const catalog = hrefsOf(await html(h, '/catalog'));
      expect(catalog.filter((l) => l.startsWith('/catalog?color='))).toHaveLength(3);
      const view = hrefsOf(await html(h, '/catalog?color=red'));
      const facetLinks = view.filter((l) => l.startsWith('?') || l.startsWith('/catalog?'));
      // 12 toggles: red off is /catalog itself, the 11 others are views.
      expect(facetLinks).toHaveLength(11);
      expect(view.filter((l) => l === '/catalog')).toHaveLength(2);
      const deep = hrefsOf(await html(h, '/catalog?brand=acme&color=red&size=m'));
      const combos = deep.filter((l) => l.split('&').length === 4);
      expect(combos.length).toBe(3);
      const written = deep.filter((l) => l.includes('&')).map((l) => l.slice(l.indexOf('?') + 1));
      expect(written.some((q) => q !== q.split('&').sort().join('&'))).toBe(true);
      expect(
        await spread(h, [
          '/catalog?color=red',
          '/catalog?color=blue',
          '/catalog?color=red&size=m',
          '/catalog?brand=acme&color=red&size=m',
        ]),
      ).toBeLessThanOrEqual(8);
      expect((await get(h, '/catalog?color=purple')).status).not.toBe(200);
    }
  });

  it('session ids: same-host links carry a fresh id per render; the page is the same without', async () => {
    for (const h of withFeature('trap-session')) {
      const a = hrefsOf(await html(h, '/'));
      const b = hrefsOf(await html(h, '/'));
      const withId = a.filter((l) => /;(jsessionid|phpsessid|sid|sessionid)=[0-9A-F]{32}/i.test(l));
      expect(withId.length, h.host).toBeGreaterThan(0);
      expect(a).not.toEqual(b);
      for (const l of a.filter(
        (x) => /^https?:|^\/\//i.test(x) && !x.toLowerCase().includes(h.host),
      ))
        expect(l).not.toMatch(/;(jsessionid|phpsessid|sid|sessionid)=/i);
      const target = withId.find((l) => l.startsWith('/') && !l.startsWith('//')) ?? '/;sid=1';
      const r = await get(h, target);
      expect(r.status).toBe(200);
      const title = (s: string): string => /<title>([^<]*)/.exec(s)?.[1] ?? '';
      const plain = target.replace(/;[a-z]+=[0-9A-F]+/i, '');
      expect(title(r.body.toString())).toBe(title(await html(h, plain)));
    }
  });

  it('soft-404 hosts: any unknown path is a 200 "not found" page, near-identical, linking more', async () => {
    for (const h of withFeature('soft-404')) {
      const dead = await homeLink(h, /^\/legacy\//);
      const r = await get(h, dead);
      expect(r.status).toBe(200);
      const body = r.body.toString();
      expect(body).toContain(`the page ${dead} could not be found`);
      const more = hrefsOf(body).filter((l) => l.startsWith('/legacy/'));
      expect(more.length).toBeGreaterThanOrEqual(1);
      expect(more.length).toBeLessThanOrEqual(2);
      expect((await get(h, '/x8q2-random-probe')).status).toBe(200);
      expect(await spread(h, [dead, more[0] as string, '/x8q2-random-probe'])).toBeLessThanOrEqual(
        8,
      );
      expect(await spread(h, [dead, '/'])).toBeGreaterThan(10);
    }
    const plain = web.hosts.find((h) => h.kind === 'normal' && !h.features.includes('soft-404'));
    expect((await get(plain as SiteInfo, '/x8q2-random-probe')).status).toBe(404);
  });

  it('no-op parameters: the same bytes for print/ref, one word differs for sort/view', async () => {
    let exact = 0;
    let near = 0;
    for (const h of withFeature('noop-params')) {
      for (const page of [
        '/',
        ...web.manifest().expected.filter((u) => u.includes(`${h.host}:`)),
      ]) {
        const path = page === '/' ? '/' : page.slice(page.indexOf('/', 8));
        for (const href of hrefsOf(await html(h, path)).filter((l) => hasNoopParam(l))) {
          const [link] = extractLinks(`<a href="${href}">`, `http://${h.host}:${web.port}${path}`);
          if (link === undefined) continue;
          const u = new URL(link);
          const target = u.pathname + u.search;
          const bare = target
            .replace(/[?&](print|ref|sort|view)=[a-z0-9]+/, '')
            .replace(/^([^?]*)&/, '$1?');
          const words = (s: string): string[] => visibleText(s).split(' ');
          const [a, b] = await Promise.all([html(h, target), html(h, bare)]);
          if (/print=|ref=/.test(target)) {
            expect(a, target).toEqual(b);
            exact++;
          } else {
            const wa = words(a);
            const wb = words(b);
            expect(wa.length).toBe(wb.length);
            expect(wa.filter((w, i) => w !== wb[i])).toHaveLength(1);
            near++;
          }
        }
        if (exact > 0 && near > 0) break;
      }
    }
    expect(exact).toBeGreaterThan(0);
    expect(near).toBeGreaterThan(0);
  });

  it('traps a naive crawler (no trap rules) in every family', async () => {
    const trapHosts = web.hosts.filter((h) =>
      [...TRAP_FAMILY_FEATURES, 'trap-session'].some((f) => h.features.includes(f)),
    );
    const since = performance.timeOrigin + performance.now();
    await Promise.all(
      trapHosts.map(async (h) => {
        const queue = [`http://${h.host}:${web.port}/`];
        const seen = new Set(queue);
        await get(h, '/robots.txt');
        for (let i = 0; i < queue.length && i < 40; i++) {
          const u = new URL(queue[i] as string);
          const r = await get(h, u.pathname + u.search);
          if (!String(r.headers['content-type']).startsWith('text/html')) continue;
          for (const link of extractLinks(r.body.toString(), u.href)) {
            if (new URL(link).hostname !== h.host || seen.has(link)) continue;
            seen.add(link);
            queue.push(link);
          }
        }
      }),
    );
    const report = scoreCrawl({
      log: web.log().filter((e) => e.startMs >= since),
      manifest: web.manifest(),
      productToken: 'crawlerbot',
      minGapMs: 0,
    });
    for (const f of ['calendar', 'pager', 'facet', 'session', 'soft-404'])
      expect(report.trap_by_family[f], f).toBeGreaterThan(0);
    expect(report.variant_by_kind.noop).toBeGreaterThan(0);
    expect(report.trap_fetch_share).toBeGreaterThan(0.3);
  });
});
