import type { RedisClient } from './connect-redis';
import { defineRedisScript, type RedisScript } from './define-script';
import type { CappedHashKeys } from './keys';
import { loadLua } from './load-lua';

const GET_LUA = loadLua(new URL('./commands/cappedHashGet-3.lua', import.meta.url));
const PUT_LUA = loadLua(new URL('./commands/cappedHashPut-3.lua', import.meta.url));
const GET_COMMAND = 'capped_hash_get';
const PUT_COMMAND = 'capped_hash_put';

/**
 * A Redis hash bounded by size with recency: each shard is two generations of at most
 * `perGeneration` fields. Writes go to the current generation; a read that finds a field only
 * in the older one copies it forward. When the current one is full the older is deleted and
 * becomes the new current one — so a shard holds at most 2 × `perGeneration` fields, and
 * always the `perGeneration` most recently written or read. Every change is one Lua script
 * (`commands/cappedHash*-3.lua`), atomic per shard. Redis 7.0 has no field TTLs (HEXPIRE came
 * in 7.4); this gives the same "kept while in use" without them, and a hard bound besides.
 */
export class CappedHash {
  private readonly getScript: RedisScript;
  private readonly putScript: RedisScript;

  constructor(
    redis: RedisClient,
    /**
     * The keys of a shard (a shard is any string the caller picks, e.g. a hash prefix): the
     * caller's key module builds them, usually with `cappedHashKeys` (./keys.ts).
     */
    private readonly keysOf: (shard: string) => CappedHashKeys,
    /** Fields one generation of one shard holds at most (≥ 1). */
    readonly perGeneration: number,
  ) {
    if (!(perGeneration >= 1)) throw new RangeError('perGeneration must be at least 1');
    this.getScript = defineRedisScript(redis, GET_COMMAND, 3, GET_LUA);
    this.putScript = defineRedisScript(redis, PUT_COMMAND, 3, PUT_LUA);
  }

  /**
   * The value of `field`, or null. By default a hit in the older generation is copied forward
   * (it was used: keep it); `{ touch: false }` only reads.
   */
  async get(shard: string, field: string, opts: { touch?: boolean } = {}): Promise<string | null> {
    const k = this.keysOf(shard);
    const value = await this.getScript(
      k.flag,
      k.a,
      k.b,
      field,
      String(this.perGeneration),
      opts.touch === false ? '0' : '1',
    );
    return typeof value === 'string' ? value : null;
  }

  /**
   * Writes fields into the shard's current generation. `{ onlyNew: true }` keeps a value already
   * there (HSETNX: the first writer wins). Returns the number of fields written.
   */
  async put(
    shard: string,
    entries: ReadonlyArray<readonly [string, string]>,
    opts: { onlyNew?: boolean } = {},
  ): Promise<number> {
    if (entries.length === 0) return 0;
    const k = this.keysOf(shard);
    const args = [k.flag, k.a, k.b, String(this.perGeneration), opts.onlyNew ? 'nx' : 'set'];
    for (const [field, value] of entries) args.push(field, value);
    return Number(await this.putScript(...args));
  }
}
