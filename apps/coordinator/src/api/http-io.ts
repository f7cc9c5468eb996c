import type { IncomingMessage, ServerResponse } from 'node:http';
import { ZodError } from 'zod';
import { APP_ERRORS, AppError, asAppError, type AppErrorCode } from './app-error';
import type { Services } from './services';

/** The largest JSON body the crawl routes read (a seed list of 10,000 URLs fits). */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

/** Reads a JSON body of at most `maxBytes`; a 400 or 413 that says what is wrong otherwise. */
export async function readJson(req: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<unknown> {
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
    throw new AppError('BAD_REQUEST', 'send a JSON body with Content-Type: application/json');
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes)
    throw new AppError('PAYLOAD_TOO_LARGE', `the body is larger than ${maxBytes} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes)
      throw new AppError('PAYLOAD_TOO_LARGE', `the body is larger than ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch (err) {
    throw new AppError('BAD_REQUEST', `the body is not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * One error shape for REST: `{ error: { code, message, fields?, details? } }`. A CrawlerError
 * that is not an AppError answers as `asAppError` says (503 when it may pass); others 500.
 */
export function sendError(
  s: Services,
  req: IncomingMessage,
  res: ServerResponse,
  err: unknown,
): void {
  // A request whose body was not read to the end (refused before reading, or too large) cannot
  // leave its connection usable: close it, and say so, instead of draining an unknown upload.
  const headers: Record<string, string> = req.complete ? {} : { connection: 'close' };
  if (err instanceof ZodError) {
    const fields = err.issues.map((i) => ({
      path: i.path.join('.') || '(body)',
      message: i.message,
    }));
    sendCode(
      res,
      'BAD_REQUEST',
      { message: fields.map((f) => `${f.path}: ${f.message}`).join('; '), fields },
      { headers },
    );
    return;
  }
  const app = asAppError(err);
  if (app) {
    if (app.code === 'PAYLOAD_TOO_LARGE') headers.connection = 'close';
    if (app.code === 'UNAUTHENTICATED') headers['www-authenticate'] = 'Bearer realm="crawler"';
    if (app.retryAfterS !== undefined) headers['retry-after'] = String(app.retryAfterS);
    sendCode(res, app.code, { message: app.message, details: app.details }, { headers });
  } else {
    s.log.error({ err }, 'request failed');
    sendCode(res, 'INTERNAL', { message: 'internal error; see the coordinator log' }, { headers });
  }
}

/**
 * An error answer, `{ error: { code, message, fields?, details? }, …beside }`, with the status
 * the one table (APP_ERRORS) gives its code.
 */
export function sendCode(
  res: ServerResponse,
  code: AppErrorCode,
  error: { message: string; fields?: unknown; details?: unknown },
  opts: { beside?: object; headers?: Record<string, string> } = {},
): void {
  send(res, APP_ERRORS[code].http, { error: { code, ...error }, ...opts.beside }, opts.headers);
}

export function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  extraHeaders: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...extraHeaders,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text);
}
