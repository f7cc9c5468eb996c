import { loadConfig } from '@crawler/shared/config';

/** Calls the coordinator's REST API; a non-2xx answer becomes an error with its message. */
export async function apiCall(
  method: string,
  path: string,
  body?: unknown,
  opts: { allow400?: boolean } = {},
): Promise<unknown> {
  const base = loadConfig().COORDINATOR_URL.replace(/\/$/, '');
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
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
  throw new Error(`${method} ${path} → ${res.status}: ${json.error?.message ?? res.statusText}`);
}
