import { next, type ArchivedUrl, type ParsedUrl, type Step } from './url-context';

/**
 * What the page's parse (made in the archive step's worker task) says to the host's quality
 * rules (quality/host-quality-tracker.ts): whether it answers like the host's missing pages (a
 * soft 404: neither followed nor fed), what its links bring that the host's pages did not link
 * recently (the novelty rule), and whether its family is stale.
 */
export const parseStep: Step<ArchivedUrl, ParsedUrl> = {
  name: 'parse',
  runsIn: 'event-loop',
  run(ctx) {
    const { r, host, entry, res, parse } = ctx;
    if (!parse) return Promise.resolve(next({ ...ctx, page: null }));
    const { page, found } = parse;
    const quality = r.quality.get(host);
    const soft404 = quality?.isSoft404(res.status, page.simhash, page.title) ?? false;
    const novelty = quality && !soft404 ? r.quality.novelty(host, entry, found.urls) : null;
    const judged = quality?.judgePage(
      entry.url,
      { simhash: page.simhash, title: page.title, textShape: parse.textShape, novelty },
      soft404,
    );
    if (soft404) {
      r.quality.count(host, 'soft_404');
      r.counters.qualityRefused++;
    }
    const { simhash, title } = page;
    return Promise.resolve(
      next({ ...ctx, page: { simhash, title, soft404, stale: judged?.stale ?? false } }),
    );
  },
};
