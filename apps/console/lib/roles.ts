// Roles as the coordinator defines them (`@crawler/domain/api`, lowest first). The console uses
// them only to decide what to show; the coordinator enforces every one of them on each call.
import type { Role } from '@crawler/domain/api';
import type { RouterOutputs } from './api/router-types';

export { ROLES, atLeast, isRole, type Role } from '@crawler/domain/api';

type Me = RouterOutputs['auth']['me'];

/** The signed-in user: the account, with the role this session has. */
export type SessionUser = Pick<Me['user'], 'id' | 'email' | 'name'> & { role: Role };
