import type { Frontier } from '@crawler/frontier';
import type { RedisClient } from '@crawler/adapters/redis';
import { defineRebuildScript, type ScriptCall } from './define-script';

/** url_fps per script call at most (a call blocks Redis while it runs). */
const CHUNK = 1000;

/**
 * Puts URLs into their shards' seen sets without queueing them (markSeen-1.lua, which runs the
 * frontier's own seen-set code): what a rebuild does for every URL already fetched.
 */
export class SeenMarker {
  private readonly script: ScriptCall;

  constructor(
    redis: RedisClient,
    private readonly frontier: Frontier,
    /** FRONTIER_SEEN: the installation's seen-set mode. */
    private readonly mode: 'bloom' | 'set',
  ) {
    this.script = defineRebuildScript(redis, new URL('./markSeen-1.lua', import.meta.url));
  }

  /** Marks the URLs seen; returns how many were not seen before. */
  async mark(entries: ReadonlyArray<{ urlFp: string; host: string }>): Promise<number> {
    const byShard = new Map<number, string[]>();
    for (const e of entries) {
      const s = this.frontier.shardOf(e.host);
      const fps = byShard.get(s);
      if (fps) fps.push(e.urlFp);
      else byShard.set(s, [e.urlFp]);
    }
    const f = this.frontier;
    const calls: Promise<unknown>[] = [];
    for (const [s, fps] of byShard)
      for (let i = 0; i < fps.length; i += CHUNK)
        calls.push(
          this.script(
            f.keys.seen(s),
            this.mode,
            f.bloomBits,
            f.bloomHashes,
            ...fps.slice(i, i + CHUNK),
          ),
        );
    return (await Promise.all(calls)).reduce<number>((a, n) => a + Number(n), 0);
  }
}
