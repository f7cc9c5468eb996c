import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ScriptError, ScriptReply, waitOutShardMove } from './script-replies';

const lua = (path: string) => readFileSync(new URL(`./commands/${path}`, import.meta.url), 'utf8');

describe('ScriptReply', () => {
  it('names the same numbers as the scripts (includes/script-replies.lua)', () => {
    const declared = [...lua('includes/script-replies.lua').matchAll(/^local (\w+) = (-?\d+)/gm)];
    expect(Object.fromEntries(declared.map(([, name, n]) => [name, Number(n)]))).toEqual(
      ScriptReply,
    );
  });

  it('names the error code the shard-move check raises (includes/shard-moving.lua)', () => {
    const message = /local SHARD_MOVING = '([^']*)'/.exec(lua('includes/shard-moving.lua'))?.[1];
    expect(message?.split(' ', 1)[0]).toBe(ScriptError.SHARD_MOVING);
  });
});

describe('waitOutShardMove', () => {
  it('retries while the shard moves (SHARDMOVING, TRYAGAIN), then answers', async () => {
    const errors = [`${ScriptError.SHARD_MOVING} moving`, `${ScriptError.TRY_AGAIN} slot`];
    let calls = 0;
    const answer = await waitOutShardMove(async () => {
      const message = errors[calls++];
      if (message !== undefined) throw new Error(message);
      return 7;
    });
    expect([answer, calls]).toEqual([7, 3]);
  });

  it('gives any other error back at once', async () => {
    let calls = 0;
    const call = waitOutShardMove(async () => {
      calls++;
      throw new Error('NOSCRIPT No matching script');
    });
    await expect(call).rejects.toThrow('NOSCRIPT');
    expect(calls).toBe(1);
  });
});
