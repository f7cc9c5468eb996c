// The browser's address, for the coordinator's login limits and audit log. The console relays
// every call, so without it the coordinator would see only the console's own address.
import { BlockList, isIP } from 'node:net';

/**
 * Set on every request by `stampPeerAddress` (instrumentation.ts): the address of the socket
 * the request came in on, overwriting whatever a client sent under that name. Next.js itself
 * keeps a client's own X-Forwarded-For when it sets that header, so only this one is sure.
 */
export const PEER_HEADER = 'x-crawler-console-peer';

/** Set (process-wide: route handlers and instrumentation are separate bundles) by the stamp. */
const STAMP_ACTIVE = Symbol.for('crawler.console.peer-stamp');

/** Marks the stamp active in this process: only then is {@link PEER_HEADER} believed. */
export function markPeerStampActive(): void {
  (globalThis as Record<symbol, unknown>)[STAMP_ACTIVE] = true;
}

function peerStampActive(): boolean {
  return (globalThis as Record<symbol, unknown>)[STAMP_ACTIVE] === true;
}

/** An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) as the IPv4 address it carries. */
function plain(ip: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return m?.[1] ?? ip;
}

let proxies: { source: string; list: BlockList } | undefined;

/**
 * CONSOLE_TRUSTED_PROXIES: CIDRs of reverse proxies in front of the console, whose
 * X-Forwarded-For entries are believed. Entries that are not CIDRs are ignored (and said so).
 */
function trustedProxies(): BlockList {
  const source = process.env.CONSOLE_TRUSTED_PROXIES ?? '';
  if (proxies?.source === source) return proxies.list;
  const list = new BlockList();
  for (const cidr of source
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean)) {
    const [net = '', bits = ''] = cidr.split('/');
    const family = isIP(net);
    const prefix = Number(bits);
    if (family === 0 || !/^\d+$/.test(bits) || prefix > (family === 4 ? 32 : 128)) {
      console.warn(`CONSOLE_TRUSTED_PROXIES: "${cidr}" is not a CIDR such as 10.0.0.0/8; ignored`);
      continue;
    }
    list.addSubnet(net, prefix, family === 4 ? 'ipv4' : 'ipv6');
  }
  proxies = { source, list };
  return list;
}

function trusted(list: BlockList, ip: string): boolean {
  const v = isIP(ip);
  return v !== 0 && list.check(ip, v === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The address of the browser behind a request: the peer of the connection, or — when that
 * peer is a trusted proxy — the last X-Forwarded-For entry not itself a trusted proxy (each
 * proxy appends the address it saw; entries further left are the client's to invent). Null
 * when the peer is unknown: the stamp is not running in this process, so the header could be
 * anyone's (the coordinator then counts the console's own address).
 */
export function clientAddress(
  headers: Headers,
  trustedList: BlockList = trustedProxies(),
): string | null {
  if (!peerStampActive()) return null;
  const peerRaw = headers.get(PEER_HEADER);
  if (peerRaw === null || isIP(peerRaw) === 0) return null;
  const peer = plain(peerRaw);
  if (!trusted(trustedList, peer)) return peer;
  const hops = (headers.get('x-forwarded-for') ?? '')
    .split(',')
    .map((h) => plain(h.trim()))
    .filter((h) => isIP(h) !== 0);
  for (let i = hops.length - 1; i >= 0; i--) if (!trusted(trustedList, hops[i]!)) return hops[i]!;
  return hops[0] ?? peer;
}
