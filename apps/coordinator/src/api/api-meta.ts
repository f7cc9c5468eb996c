import type { Role } from '../auth/roles';
import type { AppErrorCode } from './app-error';

/** HTTP methods of REST /v1. GET is a tRPC query; every other method a mutation. */
export type RestMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * How a procedure is served under REST /v1 and described in /v1/openapi.json. The procedure's
 * input is put together from the path parameters, then the query string (GET, DELETE) or the
 * JSON body (other methods); a procedure without input fields beyond its path reads neither.
 */
export interface OpenApiMeta {
  method: RestMethod;
  /** The documented path, parameters in braces: `/v1/hosts/{host}`. */
  path: `/v1/${string}`;
  summary: string;
  /** The JSON body is this input field (`patch` of hosts.update), not the whole input. */
  bodyField?: string;
  /** Largest JSON body read, in bytes (default MAX_BODY_BYTES, 2 MiB). */
  maxBodyBytes?: number;
  /**
   * Errors of this operation besides those its shape implies (400 for input, 401 and 403 for
   * credentials, roles and CSRF, 413 for a body, 503 for a store that is down on any operation
   * that reaches one): 404, 409, 429, and a 503 of its own (a Redis cluster node).
   */
  errors?: readonly AppErrorCode[];
  /**
   * For an answer that applied part of the input (POST /v1/seeds): a message when the answer
   * is a 400 `BAD_REQUEST` carrying the whole answer beside `error`, null when it is a 200.
   */
  partial?: (out: never) => string | null;
}

/** The meta of every procedure: the least role that may call it, and its REST form. */
export interface ApiMeta {
  /** Set by the procedure builders (api/trpc.ts). */
  access?: Role | 'public';
  openapi?: OpenApiMeta;
}

/** Largest body of the account, settings and block-pattern routes: small, refused before parsing. */
export const SMALL_BODY_BYTES = 64 * 1024;

/** `meta({ openapi })` of a procedure served as `method path` under REST /v1. */
export function rest(
  method: RestMethod,
  path: OpenApiMeta['path'],
  summary: string,
  more: Omit<OpenApiMeta, 'method' | 'path' | 'summary'> = {},
): ApiMeta {
  return { openapi: { method, path, summary, ...more } };
}
