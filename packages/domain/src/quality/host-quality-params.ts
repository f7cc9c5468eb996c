/**
 * How host-quality.ts learns a host's no-op query parameters: each fetch is compared with
 * earlier ones whose URL differs from it only in one parameter.
 */
import { hammingDistance } from '../dedupe';
import { urlFingerprint } from '../url';
import {
  isSimhash,
  MAX_OBSERVATIONS,
  MAX_OBSERVATIONS_PER_KEY,
  type HostQualityData,
  type Observation,
} from './host-quality-data';
import { withoutParams, type UrlShape } from './url-shape';

/** Learned parameters, by name (as stored). */
type Params = HostQualityData['p'];

/**
 * Compares a fetch (its URL, of shape `shape`, and body digests) with earlier ones that differ
 * from it only in one parameter (present with another value, or absent): the same body (SHA-256,
 * or SimHash within `nearBits`) makes that parameter a no-op candidate, a different body makes it
 * real for good. The fetch joins `observations` (key → oldest first; bounded).
 */
export function learnParams(
  params: Params,
  observations: Map<string, Observation[]>,
  o: { url: string; sha256: string; simhash: string },
  shape: UrlShape,
  nearBits: number,
): void {
  const mine: Observation = ['', '', o.sha256.slice(0, 16), o.simhash];
  const same = (a: Observation) =>
    a[2] === mine[2] ||
    (isSimhash(a[3]) && isSimhash(mine[3]) && hammingDistance(a[3], mine[3]) <= nearBits);
  // The URL itself, for later URLs that add a parameter to it.
  compareAndStore(params, observations, urlFingerprint(o.url), mine, '', same);
  for (const name of new Set(shape.params.map((p) => p.name))) {
    const value = shape.params
      .filter((p) => p.name === name)
      .map((p) => p.value)
      .join(',');
    const key = urlFingerprint(withoutParams(o.url, new Set([name])));
    compareAndStore(params, observations, key, [name, value, mine[2], mine[3]], name, same);
  }
}

function compareAndStore(
  params: Params,
  observations: Map<string, Observation[]>,
  key: string,
  obs: Observation,
  name: string,
  same: (a: Observation) => boolean,
): void {
  const list = observations.get(key) ?? [];
  for (const prior of list) {
    // Differs only in one parameter: present in one URL and absent from the other (this URL
    // has `name` and the prior is the URL without it, or the reverse) — the same body makes it
    // a no-op; or present in both with other values — a different body makes it real (equal
    // bodies there teach nothing: a calendar's months look alike but are no no-op).
    const withWithout = (name !== '' && prior[0] === '') || (name === '' && prior[0] !== '');
    const param = withWithout
      ? name || prior[0]
      : name !== '' && prior[0] === name && prior[1] !== obs[1]
        ? name
        : null;
    if (param === null) continue;
    if (!same(prior)) params[param] = 'real';
    else if (withWithout && params[param] !== 'real') params[param] = 'noop';
  }
  if (list.some((p) => p[0] === obs[0] && p[1] === obs[1])) return;
  if (list.length >= MAX_OBSERVATIONS_PER_KEY) list.shift();
  list.push(obs);
  // Re-inserted last: the map's order is the eviction order (least recently added first).
  observations.delete(key);
  observations.set(key, list);
  while (observations.size > MAX_OBSERVATIONS)
    observations.delete(observations.keys().next().value!);
}
