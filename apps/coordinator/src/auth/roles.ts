import { z } from 'zod';
import { ROLES, atLeast, type Role } from '@crawler/domain/api';
import { AppError } from '../api/app-error';

export { ROLES, atLeast, type Role } from '@crawler/domain/api';
export const role = z.enum(ROLES);

/** The lower of two roles (a token never grants more than its owner currently has). */
export function lowerRole(a: Role, b: Role): Role {
  return atLeast(b, a) ? a : b;
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
