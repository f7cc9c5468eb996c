import { z } from 'zod';

/** A boolean variable: 1/0, true/false or yes/no. */
export const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no'])
  .transform((v) => v === '1' || v === 'true' || v === 'yes');

/** An integer variable within [min, max]. */
export const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
