// Failures the console's server answers itself, in the shape of the coordinator's tRPC errors
// (`error.data.appCode`), so the browser's client reads them like any other. One table maps
// each code to its tRPC code and HTTP status.
import { TRPC_ERROR_CODES_BY_KEY, type TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';

const CONSOLE_ERRORS = {
  /** A change from a page that is not the console's (Sec-Fetch-Site / Origin). */
  CSRF_REJECTED: ['FORBIDDEN', 403],
  /** No console session: sign in. */
  UNAUTHENTICATED: ['UNAUTHORIZED', 401],
  /** A procedure the console does not relay. */
  NOT_FOUND: ['NOT_FOUND', 404],
  PAYLOAD_TOO_LARGE: ['PAYLOAD_TOO_LARGE', 413],
  /** COORDINATOR_URL is not a URL. */
  CONSOLE_MISCONFIGURED: ['INTERNAL_SERVER_ERROR', 500],
  COORDINATOR_UNREACHABLE: ['BAD_GATEWAY', 502],
  /** The coordinator answered, but not with JSON. */
  BAD_RESPONSE: ['BAD_GATEWAY', 502],
  COORDINATOR_TIMEOUT: ['GATEWAY_TIMEOUT', 504],
} as const satisfies Record<string, readonly [TRPC_ERROR_CODE_KEY, number]>;

export type ConsoleErrorCode = keyof typeof CONSOLE_ERRORS;

/** A console error as its status and JSON text (see {@link consoleError}). */
export function consoleErrorReply(
  code: ConsoleErrorCode,
  message: string,
): { status: number; text: string } {
  const [trpcCode, httpStatus] = CONSOLE_ERRORS[code];
  const data = { code: trpcCode, httpStatus, appCode: code };
  return {
    status: httpStatus,
    text: JSON.stringify({ error: { message, code: TRPC_ERROR_CODES_BY_KEY[trpcCode], data } }),
  };
}

/**
 * A tRPC error answer (one object: the client gives it to every call of a batch), with
 * `cache-control: no-store` and any `headers` given.
 */
export function consoleError(
  code: ConsoleErrorCode,
  message: string,
  headers: Record<string, string> = {},
): Response {
  const reply = consoleErrorReply(code, message);
  return new Response(reply.text, {
    status: reply.status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  });
}
