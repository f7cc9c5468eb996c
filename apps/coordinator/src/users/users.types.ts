import { z } from 'zod';
import { accountEmail } from '../auth/auth.types';
import { role } from '../auth/roles';

/** Emails are validated and compared lower-cased: one account per address whatever its case. */
export const email = accountEmail;

/** 8 to 1,024 characters; the upper bound keeps a login from being a free scrypt of megabytes. */
export const password = z.string().min(8, 'at least 8 characters').max(1024);

/** `POST /v1/users` and `users.create` (admin). */
export const createUserInput = z
  .object({
    email,
    name: z.string().max(200).default(''),
    password,
    role,
  })
  .strict();

/** `PATCH /v1/users/{id}` and `users.update` (admin): any of these, at least one. */
export const userPatch = z
  .object({
    name: z.string().max(200).optional(),
    role: role.optional(),
    /** A disabled user's sessions end and its tokens stop working at once. */
    disabled: z.boolean().optional(),
    /** A new password ends the user's sessions. */
    password: password.optional(),
  })
  .strict()
  .refine(
    (p) => Object.values(p).some((v) => v !== undefined),
    'give at least one of name, role, disabled, password',
  );

export const userIdInput = z.object({ id: z.uuid('a user id (UUID)') }).strict();

/** tRPC `users.update`: REST takes the id from the path and the patch as the body. */
export const updateUserInput = userIdInput.extend({ patch: userPatch }).strict();

/** `GET /v1/users` and `users.list` (admin): ordered by email. */
export const listUsersInput = z
  .object({
    /** `next_cursor` of the previous page. */
    cursor: z.string().min(1).max(254).optional(),
    limit: z.coerce.number().int().min(1).max(500).default(50),
  })
  .strict();
