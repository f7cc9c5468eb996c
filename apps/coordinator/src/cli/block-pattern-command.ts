import { apiCall } from './api-call';
import { print, UsageError } from './cli-output';

export const BLOCK_PATTERN_USAGE = `  crawler hosts block-pattern add HOST PATTERN               drop a host's URLs whose path matches
  crawler hosts block-pattern remove HOST PATTERN            (HOST or *.example.com; PATTERN a path
  crawler hosts block-pattern list [HOST]                    prefix /private/ or a glob '*.pdf',
                                                             '/*/print/*': quote it for the shell;
                                                             the query is never matched). list
                                                             without HOST: every block rule`;

/** `crawler hosts block-pattern add|remove|list …` (args after `block-pattern`). */
export async function blockPatternCommand(args: string[]): Promise<number> {
  const [verb, host, pattern, ...rest] = args;
  if (rest.length > 0)
    throw new UsageError(
      `block-pattern takes one HOST and one PATTERN; quote a glob so the shell does not expand it (got ${args.length - 1} arguments)`,
    );
  const path = (h: string) => `/v1/hosts/${encodeURIComponent(h)}/block-patterns`;
  if (verb === 'list' && pattern === undefined)
    return print(await apiCall('GET', host ? path(host) : '/v1/block-rules'));
  if ((verb === 'add' || verb === 'remove') && host && pattern !== undefined) {
    if (verb === 'add') return print(await apiCall('POST', path(host), { pattern }));
    return print(
      await apiCall('DELETE', `${path(host)}?${new URLSearchParams({ pattern }).toString()}`),
    );
  }
  throw new UsageError(
    'use: crawler hosts block-pattern add HOST PATTERN | remove HOST PATTERN | list [HOST]',
  );
}
