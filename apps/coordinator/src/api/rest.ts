import type { IncomingMessage, ServerResponse } from 'node:http';
import { ZodError } from 'zod';
import { addSeeds } from '../seeds/add-seeds';
import { getHost, setHostPolicy } from '../hosts/host-policy';
import { getStats } from '../stats/get-stats';
import { listDeadLetters, requeueDeadLetters } from '../dead-letters/dead-letters';
import { AppError } from './app-error';
import { hostDeps } from './router';
import type { Services } from './services';

const MAX_BODY_BYTES = 2 * 1024 * 1024;

type Handler = (
  s: Services,
  params: Record<string, string>,
  body: unknown,
  /** Query-string parameters (validated by the handler's schema like a body). */
  query: Record<string, string>,
) => Promise<{ status?: number; body: unknown }>;
interface Route {
  method: string;
  pattern: RegExp;
  keys: string[];
  handler: Handler;
  hasBody: boolean;
}

const routes: Route[] = [
  route('GET', '/v1/stats', async (s) => ({ body: await getStats(s) })),
  route('GET', '/v1/dead-letters', async (s, _p, _b, query) => ({
    body: await listDeadLetters(s, query),
  })),
  route(
    'POST',
    '/v1/dead-letters/requeue',
    async (s, _p, body) => ({ body: await requeueDeadLetters(s, body) }),
    true,
  ),
  route(
    'POST',
    '/v1/seeds',
    async (s, _p, body) => {
      const out = await addSeeds(s, body as never, 'api');
      // Invalid entries make the call a 400 that names each of them; the valid ones are applied.
      return {
        status: out.rejected.length > 0 ? 400 : 200,
        body:
          out.rejected.length > 0
            ? {
                error: {
                  code: 'BAD_REQUEST',
                  message: `${out.rejected.length} of the URLs are invalid; the ${out.valid} valid ones were accepted`,
                },
                ...out,
              }
            : out,
      };
    },
    true,
  ),
  route('GET', '/v1/hosts/:host', async (s, p) => ({
    body: await getHost(hostDeps(s), p.host ?? ''),
  })),
  route(
    'PUT',
    '/v1/hosts/:host',
    async (s, p, body) => ({ body: await setHostPolicy(hostDeps(s), p.host ?? '', body as never) }),
    true,
  ),
];

function route(method: string, path: string, handler: Handler, hasBody = false): Route {
  const keys: string[] = [];
  const pattern = new RegExp(
    `^${path.replace(/:(\w+)/g, (_m, k: string) => (keys.push(k), '([^/]+)'))}$`,
  );
  return { method, pattern, keys, handler, hasBody };
}

/** Serves REST /v1. Returns false when no route matches the path. */
export async function handleRest(
  s: Services,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<boolean> {
  const matching = routes.filter((r) => r.pattern.test(path));
  if (matching.length === 0) return false;
  const r = matching.find((m) => m.method === req.method);
  if (!r) {
    send(res, 405, {
      error: {
        code: 'METHOD_NOT_ALLOWED',
        message: `${req.method ?? ''} is not allowed on ${path}; use ${matching.map((m) => m.method).join(', ')}`,
      },
    });
    return true;
  }
  const m = r.pattern.exec(path)!;
  try {
    const params = Object.fromEntries(
      r.keys.map((k, i) => [k, decodePathParam(k, m[i + 1] ?? '')]),
    );
    const body = r.hasBody ? await readJson(req) : undefined;
    const query = Object.fromEntries(new URL(req.url ?? '/', 'http://api').searchParams);
    const out = await r.handler(s, params, body, query);
    send(res, out.status ?? 200, out.body);
  } catch (err) {
    sendError(s, res, err);
  }
  return true;
}

function decodePathParam(name: string, raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new AppError('BAD_REQUEST', `${name}: "${raw}" has a malformed percent-escape`);
  }
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
    throw new AppError('BAD_REQUEST', 'send a JSON body with Content-Type: application/json');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES)
      throw new AppError('PAYLOAD_TOO_LARGE', `the body is larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch (err) {
    throw new AppError('BAD_REQUEST', `the body is not valid JSON: ${(err as Error).message}`);
  }
}

/** One error shape for REST: `{ error: { code, message, fields?, details? } }`. */
export function sendError(s: Services, res: ServerResponse, err: unknown): void {
  if (err instanceof ZodError) {
    const fields = err.issues.map((i) => ({
      path: i.path.join('.') || '(body)',
      message: i.message,
    }));
    send(res, 400, {
      error: {
        code: 'BAD_REQUEST',
        message: fields.map((f) => `${f.path}: ${f.message}`).join('; '),
        fields,
      },
    });
  } else if (err instanceof AppError) {
    // The rest of an oversized body is never read: close the connection instead of keeping it.
    send(
      res,
      err.httpStatus,
      { error: { code: err.code, message: err.message, details: err.details } },
      err.code === 'PAYLOAD_TOO_LARGE' ? { connection: 'close' } : {},
    );
  } else {
    s.log.error({ err }, 'request failed');
    send(res, 500, {
      error: { code: 'INTERNAL', message: 'internal error; see the coordinator log' },
    });
  }
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
