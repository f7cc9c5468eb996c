// Roles as the coordinator defines them, lowest first. The console uses them only to decide
// what to show; the coordinator enforces every one of them on each call anyway.
import type { RouterOutputs } from './api/router-types';

type Me = RouterOutputs['auth']['me'];

/** A role, as the coordinator answers it. */
export type Role = Me['role'];

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

/** Every role, lowest first. */
export const ROLES = (Object.keys(RANK) as Role[]).sort((a, b) => RANK[a] - RANK[b]);

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && Object.hasOwn(RANK, value);
}

/** True when `have` grants at least what `need` does. */
export function atLeast(have: Role, need: Role): boolean {
  return RANK[have] >= RANK[need];
}

/** The signed-in user: the account, with the role this session has. */
export type SessionUser = Pick<Me['user'], 'id' | 'email' | 'name'> & { role: Role };
