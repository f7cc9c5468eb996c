import type { UserRow } from '../db/user-repository';
import { storedRole, type Role } from '../auth/roles';

/** A user as the API shows it (and as audit entries record it): never the password hash. */
export interface UserView {
  id: string;
  email: string;
  name: string;
  role: Role;
  disabled: boolean;
  created_at: string;
  updated_at: string;
}

export function userView(u: UserRow): UserView {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    role: storedRole(u.role),
    disabled: u.disabled,
    created_at: u.createdAt.toISOString(),
    updated_at: u.updatedAt.toISOString(),
  };
}

/** The fields an audit entry keeps of a user (no timestamps: the entry has its own). */
export function userAuditView(u: UserRow) {
  return { id: u.id, email: u.email, name: u.name, role: u.role, disabled: u.disabled };
}
