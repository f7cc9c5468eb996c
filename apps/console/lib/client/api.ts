// Browser-side calls to the console's own `/api/v1/...` relay. Every answer becomes an
// ApiResult, so pages branch on `ok` and on the stable error `code`, never on messages.

export interface ApiFailure {
  ok: false;
  status: number;
  code: string;
  message: string;
  fields: Array<{ path: string; message: string }>;
  /** The whole error body, for answers that carry more (a seed list's rejected entries). */
  body: unknown;
}
export type ApiResult<T> = { ok: true; data: T } | ApiFailure;

function failure(status: number, body: unknown): ApiFailure {
  const error = (body as { error?: Record<string, unknown> } | null)?.error ?? {};
  const fields = Array.isArray(error.fields)
    ? (error.fields as Array<{ path: string; message: string }>)
    : [];
  return {
    ok: false,
    status,
    code: typeof error.code === 'string' ? error.code : `HTTP_${status}`,
    message: typeof error.message === 'string' ? error.message : `The console answered ${status}.`,
    fields,
    body,
  };
}

async function call<T>(method: string, path: string, body?: unknown): Promise<ApiResult<T>> {
  let res: Response;
  try {
    res = await fetch(`/api/v1${path}`, {
      method,
      cache: 'no-store',
      headers: body !== undefined ? { 'content-type': 'application/json' } : {},
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch {
    return failure(0, {
      error: {
        code: 'CONSOLE_UNREACHABLE',
        message: 'Cannot reach the console server. Check that it is running, then retry.',
      },
    });
  }
  let parsed: unknown = null;
  try {
    parsed = await res.json();
  } catch {
    parsed = null;
  }
  return res.ok ? { ok: true, data: parsed as T } : failure(res.status, parsed);
}

export const apiGet = <T>(path: string) => call<T>('GET', path);
export const apiSend = <T>(
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
) => call<T>(method, path, body);

/** Builds `?a=1&b=2`, leaving out empty values. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
