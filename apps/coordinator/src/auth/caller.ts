import type { IncomingHttpHeaders } from 'node:http';
import type { Role } from './roles';

/** Who is making an API call, resolved from a bearer token or a session cookie. */
export interface Caller {
  userId: string;
  email: string;
  /** The role this call runs with: a token's role, capped by its owner's current role. */
  role: Role;
  via: 'token' | 'session';
  tokenId: string | null;
  tokenName: string | null;
  /** SHA-256 of the session id (the stored key), for logout. */
  sessionIdHash: string | null;
}

/** What the audit log and error messages call a caller. */
export function callerLabel(c: Caller): string {
  return c.via === 'token' ? `token ${c.tokenName ?? '?'} (${c.email})` : c.email;
}

/** Facts about one HTTP request that services need besides its body. */
export interface RequestInfo {
  method: string;
  headers: IncomingHttpHeaders;
  /** From a well-formed `x-request-id` header, or generated; echoed in the response. */
  requestId: string;
  /** The peer address (proxies' X-Forwarded-For is not trusted). */
  sourceIp: string | null;
  /** Adds a `Set-Cookie` header to the response. */
  setCookie(cookie: string): void;
}

/** A caller and the request it made: what an audited change records as its actor. */
export interface CallContext {
  caller: Caller;
  request: RequestInfo;
}
