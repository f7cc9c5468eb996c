import { z } from 'zod';

/**
 * `POST /v1/auth/login` and `auth.login`. The email is matched lower-cased; the password is not
 * checked for length here, so a wrong one is a 401 like any other wrong password.
 */
export const loginInput = z
  .object({
    email: z
      .string()
      .min(1)
      .max(254)
      .transform((e) => e.trim().toLowerCase()),
    password: z.string().min(1).max(1024),
  })
  .strict();
export type LoginInput = z.input<typeof loginInput>;
