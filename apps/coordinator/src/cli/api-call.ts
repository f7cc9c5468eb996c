import { loadConfig } from '@crawler/domain/config';
import { CrawlerError, type RetryClass } from '@crawler/domain/errors';
import { APP_ERRORS, type AppErrorCode } from '../api/app-error';
import { resolveApiToken } from './api-token';

/**
 * A call the coordinator answered with an error (`code`: the API's own stable code, `status` its
 * HTTP status) or did not answer at all (`COORDINATOR_UNREACHABLE`, `status` null).
 */
export class ApiCallError extends CrawlerError {
  override readonly name = 'ApiCallError';
  readonly retry: RetryClass;

  constructor(
    readonly code: AppErrorCode | 'COORDINATOR_UNREACHABLE',
    message: string,
    readonly status: number | null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.retry = code === 'COORDINATOR_UNREACHABLE' ? 'backoff' : APP_ERRORS[code].retry;
  }
}

const isAppErrorCode = (code: unknown): code is AppErrorCode =>
  typeof code === 'string' && Object.hasOwn(APP_ERRORS, code);

/**
 * The API code of an error answer: the one it names, else (an answer from something in front of
 * the coordinator, without our body) the table's first code with its status, UNAVAILABLE for a
 * gateway's 502 or 504, else INTERNAL.
 */
function codeOf(status: number, named: unknown): AppErrorCode {
  if (isAppErrorCode(named)) return named;
  const byStatus = Object.entries(APP_ERRORS).find(([, e]) => e.http === status)?.[0];
  if (isAppErrorCode(byStatus)) return byStatus;
  return status === 502 || status === 504 ? 'UNAVAILABLE' : 'INTERNAL';
}

/**
 * Calls the coordinator's REST API with the CLI's token (see api-token.ts); a non-2xx answer
 * becomes an {@link ApiCallError} with its code and message.
 */
export async function apiCall(
  method: string,
  path: string,
  body?: unknown,
  opts: { allow400?: boolean } = {},
): Promise<unknown> {
  const config = loadConfig();
  const base = config.COORDINATOR_URL.replace(/\/$/, '');
  const auth = resolveApiToken(config);
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (auth) headers.authorization = `Bearer ${auth.token}`;
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    throw new ApiCallError(
      'COORDINATOR_UNREACHABLE',
      `the coordinator at ${base} did not answer (${(err as Error).message}); start it with \`npm start\` or set COORDINATOR_URL`,
      null,
      { cause: err },
    );
  }
  const json = (await res.json().catch(() => ({}))) as {
    error?: { code?: unknown; message?: string };
  };
  if (res.ok || (opts.allow400 && res.status === 400)) return json;
  const hint =
    res.status === 401
      ? auth
        ? ` (the token from ${auth.from} was refused)`
        : ' (set CRAWLER_API_TOKEN to an API token; `npm start` writes one to DATA_DIR/admin.json)'
      : '';
  throw new ApiCallError(
    codeOf(res.status, json.error?.code),
    `${method} ${path} → ${res.status}: ${json.error?.message ?? res.statusText}${hint}`,
    res.status,
  );
}
