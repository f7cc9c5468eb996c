import { normalizeUrl, type NormalizeOptions, type NormalizeRejectReason } from './normalize-url';
import { urlFingerprint } from './url-fingerprint';

/** A URL as the frontier keys it: normalized, with its fingerprint and host. */
export interface FrontierEntry {
  url: string;
  /** `urlFingerprint(url)`: the key of every store. */
  urlFp: string;
  /** The politeness key: lowercase punycode, no port, no trailing dot. */
  host: string;
}

/** A frontier entry, or why the URL cannot be crawled (the normalizer's stable code and detail). */
export type FrontierEntryResult =
  { ok: true; entry: FrontierEntry } | { ok: false; reason: NormalizeRejectReason; detail: string };

/**
 * URL → frontier entry, the one step every producer of frontier URLs takes (seeds, links,
 * redirects, sitemap entries, robots.txt `Sitemap:` lines, the URL inspector): the normalized URL
 * (the canonical form every seen-check uses), its fingerprint (`url_fp`, the key of every store)
 * and its host (the politeness key). Spread `entry` into an `EnqueueUrl` with its depth and
 * source. Never throws.
 * @param raw an absolute URL, or a reference relative to `base`
 * @param base the effective base of the page the reference was found on
 * @param opts `maxLength` of the normalized URL (default DEFAULT_MAX_URL_LENGTH)
 */
export function frontierEntry(
  raw: string,
  base?: string,
  opts?: NormalizeOptions,
): FrontierEntryResult {
  const n = normalizeUrl(raw, base, opts);
  if (!n.ok) return n;
  return { ok: true, entry: { url: n.url, urlFp: urlFingerprint(n.url), host: n.host } };
}
