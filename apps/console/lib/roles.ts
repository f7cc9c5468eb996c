// Roles as the coordinator defines them, lowest first. The console uses them only to decide
// what to show; the coordinator enforces every one of them on each call anyway.

export const ROLES = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** True when `have` grants at least what `need` does. */
export function atLeast(have: Role, need: Role): boolean {
  return RANK[have] >= RANK[need];
}

export interface SessionUser {
  id: string;
  email: string;
  name: string;
  role: Role;
}
