// What the coordinator's API and its clients (the console's server, scripts) must agree on,
// declared once: the roles and their order, and the names of the session cookie and of the
// headers the API reads. Pure constants: the console's bundle imports them too.

/**
 * Roles, lowest first. viewer: read-only (stats, hosts, dead letters, own tokens); operator:
 * viewer + crawl changes (seeds, host policies, dead-letter requeue) and the audit log; admin:
 * everything, including users and everyone's tokens.
 */
export const ROLES = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** True when `have` grants at least what `need` does. */
export function atLeast(have: Role, need: Role): boolean {
  return ROLES.indexOf(have) >= ROLES.indexOf(need);
}

/** True when `value` names a role. */
export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** The coordinator's session cookie (httpOnly; the console relays it). */
export const SESSION_COOKIE = 'crawler_session';
/** The header a script sends to show it is not a cross-site form or image request. */
export const CSRF_HEADER = 'x-crawler-csrf';
/** The console's credential (CONSOLE_SECRET) on its calls. */
export const CONSOLE_SECRET_HEADER = 'x-crawler-console';
/** The browser's address as the console saw it; believed only with the console's credential. */
export const CLIENT_ADDRESS_HEADER = 'x-crawler-client-address';
/**
 * Most procedure calls the console puts in one tRPC batch (its links' `maxItems`); the
 * coordinator's TRPC_MAX_BATCH_SIZE may not be lower.
 */
export const TRPC_CONSOLE_BATCH_ITEMS = 10;
