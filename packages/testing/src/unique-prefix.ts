import { randomBytes } from 'node:crypto';

/** A Redis key prefix no other test run uses. */
export function uniquePrefix(label = 't'): string {
  return `test-${label}-${process.pid}-${randomBytes(4).toString('hex')}`;
}
