import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export interface HttpReply<T> {
  status: number;
  headers: IncomingHttpHeaders;
  body: T;
}

/**
 * One HTTP call on a fresh connection (node:http, so any header can be set, including Cookie,
 * Origin and Sec-Fetch-Site, which browsers control). An object body is sent as JSON; a string
 * as is. The answer's body is parsed as JSON (null when empty).
 */
export async function httpCall<T = ApiError>(
  baseUrl: string,
  method: string,
  path: string,
  opts: {
    body?: string | object;
    /** Content-Type of a body (default application/json); null sends none. */
    contentType?: string | null;
    headers?: Record<string, string>;
  } = {},
): Promise<HttpReply<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  const body =
    opts.body === undefined
      ? undefined
      : typeof opts.body === 'string'
        ? opts.body
        : JSON.stringify(opts.body);
  if (body !== undefined) {
    const contentType = opts.contentType === undefined ? 'application/json' : opts.contentType;
    if (contentType !== null) headers['content-type'] ??= contentType;
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  return new Promise<HttpReply<T>>((resolve, reject) => {
    let answered = false;
    const req = httpRequest(`${baseUrl}${path}`, { method, headers, agent: false }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        try {
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: (text === '' ? null : JSON.parse(text)) as T,
          });
        } catch {
          reject(new Error(`HTTP ${res.statusCode}: not JSON: ${text.slice(0, 200)}`));
        }
      });
    });
    // The server may answer (401, 413) and close before it has read the whole upload.
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    req.end(body);
  });
}

export interface ApiError {
  error: {
    code: string;
    message: string;
    fields?: Array<{ path: string; message: string }>;
    details?: unknown;
  };
}

export interface TrpcError {
  error: {
    message: string;
    data: { code: string; httpStatus: number; path: string; fields?: Array<{ path: string }> };
  };
}

/** `crawler_session=<value>` from a login answer, ready for a Cookie header. */
export function sessionCookieOf(reply: HttpReply<unknown>): string {
  const set = reply.headers['set-cookie'] ?? [];
  const c = set.find((x) => x.startsWith('crawler_session='));
  if (!c) throw new Error(`no session cookie in ${JSON.stringify(set)}`);
  return c.split(';')[0]!;
}
