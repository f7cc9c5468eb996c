import { z } from 'zod';

/**
 * An account's email: trimmed, a valid address (zod's email format), at most 254 characters,
 * compared lower-cased (one account per address whatever its case). The same rule at login
 * and when an account is created, so a login never looks up what could not be an account.
 */
export const accountEmail = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email('an email address, e.g. ann@example.com'))
  .transform((e) => e.toLowerCase());

/**
 * `POST /v1/auth/login` and `auth.login`. The password is not checked for length here, so a
 * wrong one is a 401 like any other wrong password.
 */
export const loginInput = z
  .object({
    email: accountEmail,
    password: z.string().min(1).max(1024),
  })
  .strict();
export type LoginInput = z.input<typeof loginInput>;
