import { shardOf, type Frontier } from '@crawler/frontier';
import type { RedisClient } from '@crawler/adapters/redis';
import { HostQuality, type QualityLimits, type QualityRule } from '@crawler/domain/quality';

/** A host's crawl-quality state as its agents left it (a fresh one when none was saved). */
export async function readHostQuality(
  redis: RedisClient,
  frontier: Frontier,
  host: string,
  /** The thresholds agents apply (QUALITY_*). */
  limits: QualityLimits,
): Promise<HostQuality> {
  const raw = await redis.get(frontier.keys.hostQuality(shardOf(host, frontier.shards), host));
  return HostQuality.parse(raw, limits);
}

/** Most pages tried as the page a pager URL was linked from (one per number in the URL). */
const MAX_PAGER_SOURCES = 16;

/**
 * The URLs a pager URL would be the next step of: the URL with one of its numbers (a numeric
 * query value, or a number of its path) one lower — page N − 1 of the same template. The host's
 * own rules then say which number, if any, is a pager's (`page=`, `/page/N`…), so the pager
 * parameter names stay the domain's alone.
 */
export function pagerSources(url: string): string[] {
  const pathStart = url.indexOf('/', url.indexOf('//') + 2);
  if (pathStart < 0) return [];
  const q = url.indexOf('?', pathStart);
  const out: string[] = [];
  // Whole digit runs of the path, and whole numeric values of the query.
  for (const m of url.slice(pathStart, q < 0 ? undefined : q).matchAll(/\d+/g)) {
    if (out.length >= MAX_PAGER_SOURCES) return out;
    const at = pathStart + m.index;
    const lower = previous(m[0]);
    if (lower !== null) out.push(url.slice(0, at) + lower + url.slice(at + m[0].length));
  }
  if (q < 0) return out;
  let at = q + 1;
  for (const pair of url.slice(q + 1).split('&')) {
    const eq = pair.indexOf('=');
    const value = eq < 0 ? '' : pair.slice(eq + 1);
    const lower = /^\d+$/.test(value) ? previous(value) : null;
    if (lower !== null) {
      if (out.length >= MAX_PAGER_SOURCES) return out;
      const v = at + eq + 1;
      out.push(url.slice(0, v) + lower + url.slice(v + value.length));
    }
    at += pair.length + 1;
  }
  return out;
}

/** A run of digits less one (`52` → `51`, `10` → `9`); null for zero and for ids too long to be a page number. */
function previous(digits: string): string | null {
  const n = Number(digits);
  return digits.length <= 15 && n > 0 ? String(n - 1) : null;
}

/**
 * The quality rule that keeps a URL of the host from being fetched: a closed URL family, a
 * facet explosion, or learned no-op parameters (the URL without them is fetched instead); null
 * when none does. With `asLink` (a URL never queued), a pager's step past QUALITY_MAX_PAGER_DEPTH
 * is found too: agents judge that rule on a link and the page it was found on, so it is judged
 * here as the next step from page N − 1 of the URL's own template — the page that would link
 * it. A queued URL is not judged so: a numbered page reached from elsewhere is fetched.
 */
export function qualityRuleOf(
  quality: HostQuality,
  url: string,
  opts: { asLink?: boolean } = {},
): QualityRule | null {
  if (opts.asLink)
    for (const from of pagerSources(url)) {
      const step = quality.screen(url, from);
      if (step.kind === 'drop' && step.rule === 'pager_depth') return 'pager_depth';
    }
  const verdict = quality.screen(url);
  if (verdict.kind === 'drop') return verdict.rule;
  return verdict.kind === 'strip' ? 'noop_param' : null;
}

/** URLs each crawl-quality and trap rule kept out, summed over the shards (`{p}:{s}:qc`). */
export async function qualityCounters(
  redis: RedisClient,
  frontier: Frontier,
): Promise<Record<string, number>> {
  // One command per shard (each its own cluster slot), sent together.
  const shards = await Promise.all(
    Array.from({ length: frontier.shards }, (_, s) =>
      redis.hgetall(frontier.keys.qualityCounters(s)),
    ),
  );
  const out: Record<string, number> = {};
  for (const fields of shards)
    for (const [rule, n] of Object.entries(fields)) out[rule] = (out[rule] ?? 0) + Number(n);
  return out;
}
