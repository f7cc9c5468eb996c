import { CrawlerError } from '@crawler/domain/errors';

/** A wrong command line: the CLI prints the usage and exits 2. */
export class UsageError extends CrawlerError {
  readonly code = 'CLI_USAGE';
  readonly retry = 'give_up';
}

/** Prints a JSON value and returns the exit code. */
export function print(value: unknown, code = 0): number {
  console.log(JSON.stringify(value, null, 2));
  return code;
}
