// Server-side proxy for the coordinator's `GET /v1/stats`. The browser never talks to the
// coordinator directly: the API token (CONSOLE_API_TOKEN) stays on the server, and every
// failure becomes one JSON shape (StatsErrorBody) with a hint the page can show as-is.
import { isCrawlStats, type StatsErrorBody } from '../../../lib/stats-types';

export const dynamic = 'force-dynamic';

const DEFAULT_COORDINATOR_URL = 'http://127.0.0.1:4000';
const TIMEOUT_MS = 5_000;
const START_HINT = 'Start the coordinator: `npm start`';
const NO_STORE = { 'Cache-Control': 'no-store' } as const;

function errorResponse(status: number, error: StatsErrorBody['error']): Response {
  const body: StatsErrorBody = { error };
  return Response.json(body, { status, headers: NO_STORE });
}

function statsUrl(): URL | null {
  const base = (process.env.COORDINATOR_URL ?? '').trim() || DEFAULT_COORDINATOR_URL;
  try {
    // Keep any path prefix of COORDINATOR_URL (e.g. behind a reverse proxy at /crawler).
    return new URL(`${base.replace(/\/+$/, '')}/v1/stats`);
  } catch {
    return null;
  }
}

function isTimeout(err: unknown): boolean {
  return err instanceof DOMException && (err.name === 'TimeoutError' || err.name === 'AbortError');
}

function timeoutResponse(where: string): Response {
  return errorResponse(502, {
    code: 'coordinator_timeout',
    message: `The coordinator at ${where} did not answer within ${TIMEOUT_MS / 1000} s.`,
    hint: 'Check that the coordinator is running and not overloaded; start it with `npm start`.',
  });
}

export async function GET(): Promise<Response> {
  const url = statsUrl();
  if (url === null) {
    return errorResponse(500, {
      code: 'misconfigured',
      message: 'COORDINATOR_URL is not a valid URL.',
      hint: 'Set `COORDINATOR_URL` to the coordinator base URL, e.g. `http://127.0.0.1:4000`, and restart the console.',
    });
  }
  const where = url.origin;

  const headers: Record<string, string> = { Accept: 'application/json' };
  const token = process.env.CONSOLE_API_TOKEN?.trim();
  if (token) headers.Authorization = `Bearer ${token}`;

  let upstream: Response;
  try {
    upstream = await fetch(url, {
      headers,
      cache: 'no-store',
      redirect: 'manual',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (err) {
    if (isTimeout(err)) return timeoutResponse(where);
    return errorResponse(502, {
      code: 'coordinator_unreachable',
      message: `Cannot reach the coordinator at ${where}.`,
      hint: START_HINT + ' (or set `COORDINATOR_URL` if it runs elsewhere).',
    });
  }

  if (!upstream.ok) {
    await upstream.body?.cancel();
    const auth = upstream.status === 401 || upstream.status === 403;
    return errorResponse(502, {
      code: 'coordinator_error',
      message: `The coordinator answered ${upstream.status} ${upstream.statusText}`.trim() + '.',
      hint: auth
        ? 'Set `CONSOLE_API_TOKEN` to a valid coordinator API token and restart the console.'
        : 'See the coordinator logs for the cause.',
      upstreamStatus: upstream.status,
    });
  }

  let body: unknown;
  try {
    body = await upstream.json();
  } catch (err) {
    if (isTimeout(err)) return timeoutResponse(where);
    body = undefined;
  }
  if (!isCrawlStats(body)) {
    return errorResponse(502, {
      code: 'bad_response',
      message: 'The coordinator answered with stats in an unexpected shape.',
      hint: 'The console and coordinator versions may differ; deploy them together.',
    });
  }
  return Response.json(body, { headers: NO_STORE });
}
