import { z } from 'zod';
import { hostName } from '../hosts/host-policy.types';

/** `GET /v1/dead-letters` and `deadLetters.list`. */
export const listDeadLettersInput = z
  .object({
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    /** Only this host's dead letters. */
    host: hostName.optional(),
    /** `next_cursor` of the previous page. */
    cursor: z
      .string()
      .regex(/^\d{1,5}:\d{1,9}$/, 'a next_cursor from the previous page')
      .optional(),
  })
  .strict();

/** `POST /v1/dead-letters/requeue` and `deadLetters.requeue`: all, or one host's, up to `limit`. */
export const requeueDeadLettersInput = z
  .object({
    host: hostName.optional(),
    limit: z.number().int().min(1).max(1_000_000).default(10_000),
  })
  .strict();
