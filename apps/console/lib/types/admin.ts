import type { Role } from '../roles';

export interface AuditItem {
  id: string;
  at: string;
  actor: { label: string; user_id?: string | null; token_id?: string | null };
  action: string;
  target: string | null;
  before: unknown;
  after: unknown;
  request_id?: string | null;
  source_ip?: string | null;
}

export interface UserItem {
  id: string;
  email: string;
  name: string;
  role: Role;
  disabled: boolean;
  created_at: string;
}

export interface TokenItem {
  id: string;
  name: string;
  role: Role;
  prefix: string;
  user_email: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}
