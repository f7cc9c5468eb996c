import * as cheerio from 'cheerio';

export interface ExtractedPage {
  title: string;
  /** <base href> as written, if any. */
  baseHref: string | undefined;
  /** href values as written (resolve with the page's effective base). */
  links: Array<{ href: string; nofollow: boolean }>;
  /** Page-level meta robots nofollow. */
  nofollow: boolean;
}

const MAX_LINKS = 5000;

/**
 * Reads an HTML page's title, <base href> and links with cheerio on its htmlparser2 backend
 * (forgiving of malformed markup, and much faster than the spec-exact parse5 tree).
 */
export function extractLinks(html: string): ExtractedPage {
  const $ = cheerio.load(html, { xml: { xmlMode: false, decodeEntities: true } });
  const metaRobots = ($('meta[name="robots" i]').attr('content') ?? '').toLowerCase();
  const links: ExtractedPage['links'] = [];
  $('a[href], area[href]').each((_, el) => {
    if (links.length >= MAX_LINKS) return false;
    const href = $(el).attr('href');
    if (href === undefined) return undefined;
    const rel = ($(el).attr('rel') ?? '').toLowerCase();
    links.push({ href: href.trim(), nofollow: /\bnofollow\b/.test(rel) });
    return undefined;
  });
  return {
    title: $('title').first().text().trim().slice(0, 500),
    baseHref: $('base[href]').first().attr('href'),
    links,
    nofollow: /\b(nofollow|none)\b/.test(metaRobots),
  };
}

/** Decodes an HTML body using the charset from Content-Type or an early <meta>, default UTF-8. */
export function decodeHtml(body: Uint8Array, contentTypeHeader: string | undefined): string {
  const fromHeader = /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentTypeHeader ?? '')?.[1];
  let label = fromHeader;
  if (!label) {
    const head = Buffer.from(body.subarray(0, 1024)).toString('latin1');
    label = /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1];
  }
  try {
    return new TextDecoder(label ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}
