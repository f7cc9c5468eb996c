import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadLua } from '@crawler/adapters/redis';
import { ShardMoveLockReply } from './shard-move-store';

describe('ShardMoveLockReply', () => {
  const scripts = readdirSync(new URL('./', import.meta.url)).filter((f) =>
    /^\w+ShardMove\w*-\d\.lua$/.test(f),
  );

  it('names the same numbers as each lock script, which returns no bare number', () => {
    expect(scripts.sort()).toEqual([
      'putShardMove-2.lua',
      'releaseShardMoveLock-1.lua',
      'takeShardMoveLock-1.lua',
    ]);
    for (const file of scripts) {
      const lua = loadLua(new URL(`./${file}`, import.meta.url));
      const declared = [...lua.matchAll(/^local ([A-Z_]+) = (-?\d+)/gm)];
      expect(Object.fromEntries(declared.map(([, name, n]) => [name, Number(n)])), file).toEqual(
        ShardMoveLockReply,
      );
      expect(lua, file).not.toMatch(/return -?\d/);
    }
  });
});
