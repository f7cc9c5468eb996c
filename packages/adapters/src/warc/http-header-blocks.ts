import { STATUS_CODES } from 'node:http';

/** Status line of a response record, e.g. `HTTP/1.1 200 OK`. */
export function responseStatusLine(
  httpVersion: string,
  status: number,
  statusText: string,
): string {
  const reason = statusText || STATUS_CODES[status] || '';
  return `HTTP/${httpVersion} ${status} ${reason}`.trimEnd();
}

/** Request line of a request record: origin-form target, e.g. `GET /a?b=1 HTTP/1.1`. */
export function requestLine(method: string, url: URL, httpVersion: string): string {
  return `${method} ${url.pathname}${url.search} HTTP/${httpVersion}`;
}

/** Request headers as recorded: a `Host` header is added when the client did not list one. */
export function recordedRequestHeaders(
  headers: ReadonlyArray<[string, string]>,
  url: URL,
): Array<[string, string]> {
  const out = headers.map(([name, value]): [string, string] => [name, value]);
  if (!out.some(([name]) => name.toLowerCase() === 'host')) out.unshift(['Host', url.host]);
  return out;
}

/**
 * Response headers as recorded beside a decoded body: the encodings no longer describe the
 * stored bytes, so they move to `X-Crawler-Original-*`, and Content-Length becomes the stored size.
 */
export function recordedResponseHeaders(
  headers: ReadonlyArray<[string, string]>,
  bodyBytes: number,
): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const [name, value] of headers) {
    switch (name.toLowerCase()) {
      case 'content-encoding':
        out.push(['X-Crawler-Original-Content-Encoding', value]);
        break;
      case 'transfer-encoding':
        out.push(['X-Crawler-Original-Transfer-Encoding', value]);
        break;
      case 'content-length':
        if (value.trim() === String(bodyBytes)) out.push([name, value]);
        else
          out.push(
            ['X-Crawler-Original-Content-Length', value],
            ['Content-Length', String(bodyBytes)],
          );
        break;
      default:
        out.push([name, value]);
    }
  }
  return out;
}
