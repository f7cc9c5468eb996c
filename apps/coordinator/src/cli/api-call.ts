import { loadConfig } from '@crawler/domain/config';
import { resolveApiToken } from './api-token';

/**
 * Calls the coordinator's REST API with the CLI's token (see api-token.ts); a non-2xx answer
 * becomes an error with its message.
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
    throw new Error(
      `the coordinator at ${base} did not answer (${(err as Error).message}); start it with \`npm start\` or set COORDINATOR_URL`,
    );
  }
  const json = (await res.json().catch(() => ({}))) as { error?: { message?: string } };
  if (res.ok || (opts.allow400 && res.status === 400)) return json;
  const hint =
    res.status === 401
      ? auth
        ? ` (the token from ${auth.from} was refused)`
        : ' (set CRAWLER_API_TOKEN to an API token; `npm start` writes one to DATA_DIR/admin.json)'
      : '';
  throw new Error(
    `${method} ${path} → ${res.status}: ${json.error?.message ?? res.statusText}${hint}`,
  );
}
