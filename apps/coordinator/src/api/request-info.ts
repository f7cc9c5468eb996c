import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestInfo } from '../auth/caller';

/**
 * The request id is the caller's `x-request-id` when it is short and plain (so a proxy's id
 * links its logs to ours), otherwise a new UUID; it is echoed in the response header.
 */
export function requestInfo(req: IncomingMessage, res: ServerResponse): RequestInfo {
  const given = req.headers['x-request-id'];
  const requestId =
    typeof given === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(given) ? given : randomUUID();
  res.setHeader('x-request-id', requestId);
  return {
    method: (req.method ?? 'GET').toUpperCase(),
    headers: req.headers,
    requestId,
    sourceIp: req.socket.remoteAddress ?? null,
    setCookie: (cookie) => void res.appendHeader('set-cookie', cookie),
  };
}
