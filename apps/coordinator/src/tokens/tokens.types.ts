import { z } from 'zod';
import { role } from '../auth/roles';

const TEN_YEARS_MS = 10 * 365 * 86_400_000;

/** `POST /v1/tokens` and `tokens.create`. The secret is in the answer, and only there. */
export const createTokenInput = z
  .object({
    /** What the token is for, e.g. "ci" or "nightly import". */
    name: z.string().trim().min(1).max(100),
    /** At most the owner's role and the caller's; default: the lower of the two. */
    role: role.optional(),
    /** ISO 8601 time in the future (at most 10 years); absent or null = never expires. */
    expires_at: z.iso
      .datetime({ offset: true })
      .nullable()
      .optional()
      .refine((v) => v == null || Date.parse(v) > Date.now(), 'must be in the future')
      .refine(
        (v) => v == null || Date.parse(v) < Date.now() + TEN_YEARS_MS,
        'must be within 10 years',
      ),
    /** Owner; default the caller. Only admins create tokens for other users. */
    user_id: z.uuid('a user id (UUID)').optional(),
  })
  .strict();

/** `DELETE /v1/tokens/{id}` and `tokens.revoke`. */
export const revokeTokenInput = z.object({ id: z.uuid('a token id (UUID)') }).strict();

/** `GET /v1/tokens` and `tokens.list`: newest first; admins see every user's tokens. */
export const listTokensInput = z
  .object({
    /** `next_cursor` of the previous page. */
    cursor: z
      .string()
      .regex(/^\d{1,15}_[0-9a-f-]{36}$/, 'the next_cursor of a previous page')
      .optional(),
    limit: z.coerce.number().int().min(1).max(500).default(50),
  })
  .strict();
