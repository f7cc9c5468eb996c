import { next, type LinkedUrl, type Step } from './url-context';

/**
 * A followed page (not a soft 404) into the `pages.parsed` feed (feed/page-publisher.ts): its
 * fields and, unless it is noindex, its text — encoded as JSON in the worker, spliced into the
 * message as bytes here.
 */
export const feedStep: Step<LinkedUrl, LinkedUrl> = {
  name: 'feed',
  runsIn: 'event-loop',
  async run(ctx) {
    const { r, host, entry, res, archived, parse, page, base } = ctx;
    if (!parse || !page || page.soft404) return next(ctx);
    const parsed = parse.page;
    await r.pages.publishEncoded(
      {
        url_fp: entry.urlFp,
        url: entry.url,
        host,
        fetched_at: base.fetchedAt.getTime(),
        status: res.status,
        content_type: res.contentType,
        charset: parsed.charset,
        title: parsed.title,
        description: parsed.description,
        lang: parsed.lang ?? '',
        canonical: parsed.canonical ?? '',
        noindex: parsed.robots.noindex,
        nofollow: parsed.robots.nofollow,
        links: parse.found.outlinks,
        content_hash: archived.contentHash,
        simhash: parsed.simhash,
        change: archived.change === '' ? 'new' : archived.change,
        warc_key: archived.location.key,
        warc_offset: archived.location.offset,
        warc_length: archived.location.length,
        record_id: archived.location.recordId,
        depth: entry.depth,
        agent_id: r.config.agentId,
      },
      { json: parse.textJson, bytes: parse.textBytes },
    );
    return next(ctx);
  },
};
