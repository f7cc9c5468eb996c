import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { CLIENT_ADDRESS_HEADER, CONSOLE_SECRET_HEADER } from '@crawler/domain/api';
import type { RequestInfo } from '../auth/caller';
import { plainAddress } from '../auth/client-address';

/**
 * The request id is the caller's `x-request-id` when it is short and plain (so a proxy's id
 * links its logs to ours), otherwise a new UUID; it is echoed in the response header.
 */
export function requestInfo(
  req: IncomingMessage,
  res: ServerResponse,
  consoleSecret?: string,
): RequestInfo {
  const given = req.headers['x-request-id'];
  const requestId =
    typeof given === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(given) ? given : randomUUID();
  res.setHeader('x-request-id', requestId);
  return {
    method: (req.method ?? 'GET').toUpperCase(),
    headers: req.headers,
    requestId,
    sourceIp: sourceAddress(req.headers, req.socket.remoteAddress, consoleSecret),
    setCookie: (cookie) => void res.appendHeader('set-cookie', cookie),
  };
}

/**
 * Who sent a request: the peer address, unless the request carries the console's credential
 * and names the browser it relays (`x-crawler-client-address`). Without CONSOLE_SECRET, or with
 * a wrong one, that header is ignored: anyone may send it, so believing it would let a client
 * choose the address its login attempts are counted and audited under.
 */
export function sourceAddress(
  headers: IncomingHttpHeaders,
  peer: string | undefined,
  consoleSecret: string | undefined,
): string | null {
  const claimed = headers[CLIENT_ADDRESS_HEADER];
  if (
    consoleSecret !== undefined &&
    typeof claimed === 'string' &&
    isConsole(headers, consoleSecret)
  ) {
    const address = plainAddress(claimed.trim());
    if (address !== null) return address;
  }
  return plainAddress(peer) ?? peer ?? null;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Whether the request carries the console's credential (compared in constant time). */
export function isConsole(headers: IncomingHttpHeaders, consoleSecret: string): boolean {
  const given = headers[CONSOLE_SECRET_HEADER];
  return typeof given === 'string' && timingSafeEqual(digest(given), digest(consoleSecret));
}
