import { z } from 'zod';
import { AppError } from '../api/app-error';

/**
 * Roles, lowest first. viewer: read-only (stats, hosts, dead letters, own tokens);
 * operator: viewer + crawl changes (seeds, host policies, dead-letter requeue) and the audit
 * log; admin: everything, including users and everyone's tokens.
 */
export const ROLES = ['viewer', 'operator', 'admin'] as const;
export const role = z.enum(ROLES);
export type Role = z.infer<typeof role>;

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

/** True when `have` grants at least what `need` does. */
export function atLeast(have: Role, need: Role): boolean {
  return RANK[have] >= RANK[need];
}

/** The lower of two roles (a token never grants more than its owner currently has). */
export function lowerRole(a: Role, b: Role): Role {
  return RANK[a] <= RANK[b] ? a : b;
}

/** Reads a role stored in Postgres (a CHECK constraint keeps the column to these values). */
export function storedRole(value: string): Role {
  return role.parse(value);
}

/** Throws FORBIDDEN, naming the role needed and the caller's, unless `have` suffices. */
export function requireRole(have: Role, need: Role, what: string): void {
  if (!atLeast(have, need))
    throw new AppError('FORBIDDEN', `${what} needs the ${need} role; this caller has ${have}`, {
      needed: need,
      role: have,
    });
}
