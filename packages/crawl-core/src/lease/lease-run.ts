import type { HostLease, LeasedUrl } from '@crawler/frontier';
import type { AgentResources } from '../agent-resources';
import type { FetchErrorCode } from '../fetch/fetch-error';
import type { TrapRule } from '@crawler/domain/traps';
import { telemetryRow } from '../telemetry/telemetry-row';

/** How a lease's URLs went: how many were processed, and why it stopped early, if it did. */
export interface LeaseRun {
  processed: number;
  /**
   * URLs after the first `processed` finished anyway (on the host's other connections): their
   * progress marks must be written before the lease ends, so they are not fetched again.
   */
  doneBeyond: number;
  failure: { error: string; retryAfterMs: number } | null;
  parkReason?: string;
  extraDelayMs: number;
  /** When the run ended: time until the host's next turn, and its pace (ms). */
  remainingMs: number;
  paceMs: number;
}

/** When to stop starting requests: when one more could outlast the lease. */
export function stopStartingAt(r: AgentResources, lease: HostLease, receivedAt: number): number {
  return receivedAt + lease.leaseMs - r.config.FETCH_TOTAL_TIMEOUT_MS * 2 - 2000;
}

/**
 * The network guard's refusals: an address the crawler must not connect to. They are also the
 * dead-letter reasons of the hosts parked for it.
 */
export const ADDRESS_REFUSALS = ['private_address', 'invalid_address'] as const;
export type AddressRefusal = (typeof ADDRESS_REFUSALS)[number] & FetchErrorCode;
export function isAddressRefusal(code: FetchErrorCode): code is AddressRefusal {
  return (ADDRESS_REFUSALS as readonly string[]).includes(code);
}

/**
 * robots.txt answered 5xx or could not be fetched: fetch nothing, retry later with backoff, and
 * park the host once it has failed ROBOTS_MAX_FAILURES times. When the network guard refused the
 * host's own address no URL of it can ever be fetched: the host is parked at once, with that code
 * as the reason of its dead letters.
 */
export function robotsUnavailable(
  r: AgentResources,
  robots: { failures: number; refused?: AddressRefusal },
  run: LeaseRun,
): void {
  if (robots.refused) run.parkReason = robots.refused;
  else if (robots.failures >= r.config.ROBOTS_MAX_FAILURES) run.parkReason = 'robots_unavailable';
  else run.extraDelayMs = r.config.ROBOTS_RETRY_BASE_MS * 2 ** (robots.failures - 1);
}

/** discoverLinks' drop reasons that are trap rules (the normalizer's length cap is one too). */
const TRAP_DROPS: ReadonlyArray<[TrapRule | 'too_long', TrapRule]> = [
  ['url_too_long', 'url_too_long'],
  ['too_long', 'url_too_long'],
  ['path_too_deep', 'path_too_deep'],
  ['repeated_segments', 'repeated_segments'],
  ['too_deep', 'too_deep'],
  ['too_many_hops', 'too_many_hops'],
];

/** Links of a page the trap rules kept out, by rule, from discoverLinks' drops by reason. */
export function trapDropsByRule(dropped: Readonly<Record<string, number>>): Map<TrapRule, number> {
  const byRule = new Map<TrapRule, number>();
  for (const [reason, rule] of TRAP_DROPS) {
    const n = dropped[reason] ?? 0;
    if (n > 0) byRule.set(rule, (byRule.get(rule) ?? 0) + n);
  }
  return byRule;
}

/** Links of a page the trap rules kept out, from discoverLinks' drops by reason. */
export function trapDrops(dropped: Readonly<Record<string, number>>): number {
  let n = 0;
  for (const count of trapDropsByRule(dropped).values()) n += count;
  return n;
}

/** A URL robots.txt keeps us from: recorded (not a fetch attempt), never requested. */
export function recordDenied(r: AgentResources, host: string, entry: LeasedUrl): void {
  r.counters.robotsDenied++;
  r.telemetry.push(
    telemetryRow(
      r,
      { urlFp: entry.urlFp, url: entry.url, host, depth: entry.depth, fetchedAt: new Date() },
      { error_code: 'robots_denied' },
    ),
  );
}
