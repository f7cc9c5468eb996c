// A failed call as pages show it. Pages branch on `code` — the coordinator's stable API code
// (`data.appCode`: NOT_FOUND, FORBIDDEN, CSRF_REJECTED, …) or the console's own
// (COORDINATOR_UNREACHABLE, …) — never on a message.
import { TRPCClientError } from '@trpc/client';
import type { ConsoleErrorCode } from '../server/console-errors';
import type { AppRouter } from './router-types';

type ErrorData = NonNullable<TRPCClientError<AppRouter>['data']>;

/**
 * What a failure's code can be: the API's stable codes (`data.appCode`), tRPC's own, and the
 * console's (its server's relay errors, and a browser that got no answer) — a typo in a
 * comparison fails the type check.
 */
export type FailureCode =
  NonNullable<ErrorData['appCode']> | ErrorData['code'] | ConsoleErrorCode | 'CONSOLE_UNREACHABLE';

export interface ApiFailure {
  ok: false;
  code: FailureCode;
  message: string;
  /** Input fields refused, each with why (a validation error). */
  fields: Array<{ path: string; message: string }>;
}

/** A call's answer or its failure: what pages branch on, and what servers pass to pages. */
export type Settled<T> = { ok: true; data: T } | ApiFailure;

/** Said when no answer came back at all: nothing reached the console's server. */
const UNREACHABLE: ApiFailure = {
  ok: false,
  code: 'CONSOLE_UNREACHABLE',
  message: 'Cannot reach the console server. Check that it is running, then retry.',
  fields: [],
};

/** A refusal made in the console (the input was checked before any call). */
export function refusal(code: FailureCode, message: string): ApiFailure {
  return { ok: false, code, message, fields: [] };
}

/** The error data of a tRPC call that got an answer (null: no answer came). */
function dataOf(err: unknown) {
  return err instanceof TRPCClientError ? ((err as TRPCClientError<AppRouter>).data ?? null) : null;
}

/** The HTTP status a failed call was answered with (502 when no answer came). */
export function httpStatusOf(err: unknown): number {
  return dataOf(err)?.httpStatus ?? 502;
}

/**
 * The failure of a tRPC call: its code is the API's `appCode`, else tRPC's own code. A
 * validation error says which fields are wrong, each with why (as the REST API words it).
 */
export function failureOf(err: unknown): ApiFailure {
  const data = dataOf(err);
  if (!data) return UNREACHABLE;
  const fields = (data.fields ?? []).map((f) => ({
    path: f.path || '(input)',
    message: f.message,
  }));
  return {
    ok: false,
    code: data.appCode ?? data.code,
    message:
      fields.length > 0
        ? fields.map((f) => `${f.path}: ${f.message}`).join('; ')
        : (err as Error).message,
    fields,
  };
}

/** Awaits a call and settles it: its data, or its failure (see {@link failureOf}). */
export async function settle<T>(call: Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, data: await call };
  } catch (err) {
    return failureOf(err);
  }
}
