import { CrawlerError } from '@crawler/domain/errors';
import { Cluster, type Redis } from 'ioredis';
import type { Logger } from '../log';
import type { RedisClient } from './connect-redis';

/** What one Redis node says about keeping its data; null = it did not say. */
export interface RedisNodeDurability {
  /** `host:port` of the node (no credentials). */
  node: string;
  /** Where the answers came from: `CONFIG GET`, or `INFO` when CONFIG is disabled (managed Redis). */
  source: 'config' | 'info' | 'none';
  /** Append-only file on (`appendonly yes`). */
  aof: boolean | null;
  /** RDB snapshots configured (`save` has save points); INFO cannot tell. */
  rdb: boolean | null;
  /** `maxmemory-policy`: anything but `noeviction` may drop frontier keys when Redis is full. */
  evictionPolicy: string | null;
}

/** Why a node cannot hold the frontier: it keeps nothing across a restart, or evicts keys. */
export type RedisDurabilityProblem = 'not_persistent' | 'evicts_keys';

/** A fix an operator can paste, for both problems. */
const FIX =
  'Run Redis as a store: `redis-server --appendonly yes --appendfsync everysec --maxmemory-policy noeviction` ' +
  '(or on the running server: `redis-cli CONFIG SET appendonly yes`, `redis-cli CONFIG SET maxmemory-policy noeviction`, ' +
  'then `redis-cli CONFIG REWRITE` to keep it). For a throw-away crawl, set REDIS_VOLATILE_OK=true.';

/**
 * Raised at start-up when Redis would lose the frontier: it persists nothing (a restart empties
 * it and the crawl silently stops), or its eviction policy may drop frontier keys when full.
 * The message names every node and problem, and the fix.
 */
export class RedisNotDurableError extends CrawlerError {
  readonly code = 'REDIS_NOT_DURABLE';
  readonly retry = 'give_up';
  constructor(readonly problems: ReadonlyArray<{ node: string; problem: RedisDurabilityProblem }>) {
    super(
      `Redis would lose the crawl's frontier:\n${problems
        .map((p) => `  - ${p.node}: ${describe(p.problem)}`)
        .join('\n')}\n${FIX}`,
    );
  }
}

function describe(problem: RedisDurabilityProblem): string {
  return problem === 'not_persistent'
    ? 'persists nothing (appendonly no, no save points): a restart empties the frontier and the crawl stops'
    : 'its maxmemory-policy evicts keys: when full, Redis silently drops frontier keys (use noeviction)';
}

/**
 * Checks that Redis keeps the frontier: on every master (each node of a Redis Cluster), AOF on
 * or RDB save points configured, and `maxmemory-policy noeviction`. Reads `CONFIG GET`; where
 * CONFIG is disabled (managed Redis) it falls back to `INFO persistence` / `INFO memory`, and
 * where neither tells, it warns rather than refuses. RDB alone is accepted with a warning (a
 * crash loses the writes since the last snapshot).
 *
 * @throws RedisNotDurableError (code `REDIS_NOT_DURABLE`) unless `volatileOk` (REDIS_VOLATILE_OK),
 *   which logs the problems instead.
 */
export async function checkRedisDurability(
  redis: RedisClient,
  opts: { volatileOk: boolean; log: Pick<Logger, 'warn' | 'info'> },
): Promise<RedisNodeDurability[]> {
  const nodes = redis instanceof Cluster ? redis.nodes('master') : [redis];
  const states = await Promise.all(nodes.map((n) => inspectNode(n)));
  const problems: Array<{ node: string; problem: RedisDurabilityProblem }> = [];
  for (const s of states) {
    if (s.aof === false && s.rdb === false)
      problems.push({ node: s.node, problem: 'not_persistent' });
    if (s.evictionPolicy !== null && s.evictionPolicy !== 'noeviction')
      problems.push({ node: s.node, problem: 'evicts_keys' });
    if (s.aof === null && s.rdb === null)
      opts.log.warn(
        { node: s.node },
        'cannot tell whether Redis persists its data (CONFIG and INFO said nothing); it must run with AOF (appendonly yes)',
      );
    else if (s.aof === false && s.rdb === null)
      opts.log.warn(
        { node: s.node, source: s.source },
        'Redis has AOF off and CONFIG is disabled, so RDB snapshots cannot be checked; without them a restart empties the frontier',
      );
    else if (s.aof === false && s.rdb === true)
      opts.log.warn(
        { node: s.node },
        'Redis persists by RDB snapshots only: a crash loses the frontier writes since the last one (prefer appendonly yes)',
      );
    if (s.evictionPolicy === null)
      opts.log.warn({ node: s.node }, 'cannot read maxmemory-policy; it must be noeviction');
  }
  if (problems.length > 0) {
    const err = new RedisNotDurableError(problems);
    if (!opts.volatileOk) throw err;
    opts.log.info(
      { problems },
      'REDIS_VOLATILE_OK=true: running on a Redis that may lose the frontier',
    );
  }
  return states;
}

/** One node's answers: CONFIG GET first, INFO when CONFIG is refused (disabled or not allowed). */
async function inspectNode(node: Redis): Promise<RedisNodeDurability> {
  const name = `${node.options.host ?? '?'}:${node.options.port ?? '?'}`;
  try {
    const [appendonly, save, policy] = await Promise.all([
      configGet(node, 'appendonly'),
      configGet(node, 'save'),
      configGet(node, 'maxmemory-policy'),
    ]);
    return {
      node: name,
      source: 'config',
      aof: appendonly === null ? null : appendonly === 'yes',
      rdb: save === null ? null : save.trim() !== '',
      evictionPolicy: policy,
    };
  } catch {
    // CONFIG disabled (renamed away, a managed Redis) or not allowed by the ACL: ask INFO.
  }
  try {
    const info = parseInfo(`${await node.info('persistence')}\n${await node.info('memory')}`);
    const aof = info.get('aof_enabled');
    return {
      node: name,
      source: 'info',
      aof: aof === undefined ? null : aof === '1',
      rdb: null,
      evictionPolicy: info.get('maxmemory_policy') ?? null,
    };
  } catch {
    return { node: name, source: 'none', aof: null, rdb: null, evictionPolicy: null };
  }
}

/** The value of one configuration parameter, or null when the server has no such parameter. */
async function configGet(node: Redis, parameter: string): Promise<string | null> {
  const reply = await node.call('CONFIG', 'GET', parameter);
  // RESP2: [name, value]; RESP3: a map, which ioredis gives as a flat array or an object.
  if (Array.isArray(reply)) return reply.length >= 2 ? String(reply[1]) : null;
  if (reply && typeof reply === 'object' && parameter in reply)
    return String((reply as Record<string, unknown>)[parameter]);
  return null;
}

/** `field:value` lines of an INFO reply. */
function parseInfo(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0 && !line.startsWith('#')) out.set(line.slice(0, i), line.slice(i + 1).trim());
  }
  return out;
}
