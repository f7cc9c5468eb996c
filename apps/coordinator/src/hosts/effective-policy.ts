import type { HostPolicyRow } from '../db/host-policy-repository';

/** The suffixes a host's policy may come from: `a.b.com` → `a.b.com`, `b.com`, `com`. */
export function suffixesOf(host: string): string[] {
  const out: string[] = [];
  for (let name: string | null = host; name;) {
    out.push(name);
    const dot = name.indexOf('.');
    name = dot >= 0 ? name.slice(dot + 1) : null;
  }
  return out;
}

/** `*.example.com` → `example.com`; null for an exact host. */
export function suffixOfPattern(hostOrPattern: string): string | null {
  return hostOrPattern.startsWith('*.') ? hostOrPattern.slice(2) : null;
}

export interface EffectivePolicy {
  rateLimitRps: number | null;
  blocked: boolean;
  dailyBudget: number | null;
  allowlisted: boolean;
  maxConnections: number | null;
}

type Fields = Pick<
  HostPolicyRow,
  'rateLimitRps' | 'blocked' | 'dailyBudget' | 'allowlisted' | 'maxConnections'
>;

/**
 * A host's policy in effect, field by field: its own row's value, else the value of the
 * longest pattern that sets it, else the default (no rate limit of its own, not blocked, the
 * frontier's budget, not allowlisted, one connection). `patterns` are the rows of `*.<suffix>` covering the
 * host, in any order. The frontier's suffix-policy.lua resolves new hosts the same way.
 */
export function effectivePolicy(
  host: string,
  own: Fields | null,
  patterns: readonly HostPolicyRow[],
): EffectivePolicy {
  const bySuffix = new Map(patterns.map((p) => [suffixOfPattern(p.host), p]));
  const chain: Fields[] = [];
  if (own) chain.push(own);
  for (const s of suffixesOf(host)) {
    const p = bySuffix.get(s);
    if (p) chain.push(p);
  }
  const first = <K extends keyof Fields>(k: K): Fields[K] | null =>
    chain.find((f) => f[k] !== null)?.[k] ?? null;
  return {
    rateLimitRps: first('rateLimitRps'),
    blocked: first('blocked') ?? false,
    dailyBudget: first('dailyBudget'),
    allowlisted: first('allowlisted') ?? false,
    maxConnections: first('maxConnections'),
  };
}
