import { describe, expect, it } from 'vitest';
import { HashQueueFullError, HashSlots, type HashTurn } from './hash-slots';

// The hash slots' queue with tasks the test finishes by hand: at most `concurrency` at once,
// waiting in order, a bounded number of logins waiting, and one client unable to fill it.

/** A task that runs until `finish()` and records when it started. */
function task(name: string, started: string[]) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return {
    fn: async () => {
      started.push(name);
      await done;
      return name;
    },
    finish: () => finish(),
  };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** What each run came to: its value, or the code of its error. */
function settle(p: Promise<string>): { result: string | null } {
  const out: { result: string | null } = { result: null };
  p.then(
    (v) => (out.result = v),
    (err: unknown) => (out.result = err instanceof HashQueueFullError ? err.code : String(err)),
  );
  return out;
}

describe('HashSlots', () => {
  it('runs at most `concurrency` hashes at once; the rest wait their turn in order', async () => {
    const slots = new HashSlots(2);
    const started: string[] = [];
    const tasks = ['a', 'b', 'c', 'd'].map((n) => task(n, started));
    const runs = tasks.map((t) => settle(slots.run(t.fn)));
    await tick();
    expect(started).toEqual(['a', 'b']);
    tasks[1]!.finish();
    await tick();
    expect(started).toEqual(['a', 'b', 'c']);
    for (const t of tasks) t.finish();
    await tick();
    await tick();
    expect(started).toEqual(['a', 'b', 'c', 'd']);
    expect(runs.map((r) => r.result)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('refuses a login at once when `maxWaiting` logins wait; other hashes always wait', async () => {
    const slots = new HashSlots(1);
    const started: string[] = [];
    const turn: HashTurn = { client: '192.0.2.1', maxWaiting: 2 };
    const running = task('running', started);
    settle(slots.run(running.fn));
    const w1 = task('w1', started);
    const w2 = task('w2', started);
    const r1 = settle(slots.run(w1.fn, turn));
    const r2 = settle(slots.run(w2.fn, turn));
    const over = settle(slots.run(task('over', started).fn, turn));
    const account = task('account', started); // a new password: not a login, never refused
    const ra = settle(slots.run(account.fn));
    await tick();
    expect(over.result).toBe('HASH_QUEUE_FULL');
    expect(slots.queued).toBe(2);
    running.finish();
    w1.finish();
    w2.finish();
    account.finish();
    for (let i = 0; i < 6; i++) await tick();
    expect(started).toEqual(['running', 'w1', 'w2', 'account']);
    expect([r1.result, r2.result, ra.result]).toEqual(['w1', 'w2', 'account']);
  });

  it('says how long the queue takes to drain, at least a second', async () => {
    const slots = new HashSlots(1);
    const started: string[] = [];
    const first = task('first', started);
    settle(slots.run(first.fn));
    const refusal = slots.run(task('x', started).fn, { client: 'a', maxWaiting: 0 });
    await expect(refusal).rejects.toBeInstanceOf(HashQueueFullError);
    await expect(refusal).rejects.toMatchObject({ retryAfterMs: 1000, retry: 'backoff' });
    first.finish();
  });

  it('a client holding the queue gives up its latest place to another client', async () => {
    const slots = new HashSlots(1);
    const started: string[] = [];
    const flood: HashTurn = { client: '2001:db8:1::/56', maxWaiting: 3 };
    const real: HashTurn = { client: '198.51.100.7', maxWaiting: 3 };
    const running = task('running', started);
    settle(slots.run(running.fn));
    const decoys = ['d1', 'd2', 'd3'].map((n) => task(n, started));
    const decoyRuns = decoys.map((t) => settle(slots.run(t.fn, flood)));
    // More from the same client: refused, the queue being full of it.
    const d4 = settle(slots.run(task('d4', started).fn, flood));
    const login = task('real', started);
    const realRun = settle(slots.run(login.fn, real));
    await tick();
    expect(d4.result).toBe('HASH_QUEUE_FULL');
    expect(decoyRuns.map((r) => r.result)).toEqual([null, null, 'HASH_QUEUE_FULL']);
    expect(slots.queued).toBe(3);
    // The real login waits behind the two decoys that came before it, no more.
    for (const t of [running, decoys[0]!, decoys[1]!, login]) {
      t.finish();
      await tick();
      await tick();
    }
    expect(started).toEqual(['running', 'd1', 'd2', 'real']);
    expect(realRun.result).toBe('real');
  });

  it('takes no place from a client holding just one more than the newcomer', async () => {
    const slots = new HashSlots(1);
    const started: string[] = [];
    const running = task('running', started);
    settle(slots.run(running.fn));
    const a = { client: 'a', maxWaiting: 3 };
    const b = { client: 'b', maxWaiting: 3 };
    const waiting = [
      settle(slots.run(task('a1', started).fn, a)),
      settle(slots.run(task('a2', started).fn, a)),
      settle(slots.run(task('b1', started).fn, b)),
    ];
    const b2 = settle(slots.run(task('b2', started).fn, b));
    await tick();
    // a holds 2, b 1: taking a's place would only swap who holds two.
    expect(b2.result).toBe('HASH_QUEUE_FULL');
    expect(waiting.map((w) => w.result)).toEqual([null, null, null]);
    expect(slots.queued).toBe(3);
    running.finish();
  });
});
