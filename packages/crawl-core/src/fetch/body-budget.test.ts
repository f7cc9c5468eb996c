import { describe, expect, it } from 'vitest';
import { BodyBudget, BodyBudgetAbort } from './body-budget';

/** Settles pending promise callbacks. */
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('BodyBudget', () => {
  it('grants within the limit at once, growth included', async () => {
    const budget = new BodyBudget(100);
    const a = await budget.reserve(30);
    const b = await budget.reserve(30);
    expect(a.grow(40)).toBeNull();
    expect(budget.inUse).toBe(100);
    a.release();
    b.release();
    a.release(); // idempotent
    expect(budget.inUse).toBe(0);
    expect(budget.stats.waits).toBe(0);
  });

  it('lets a body larger than the whole budget proceed when it is alone', async () => {
    const budget = new BodyBudget(100);
    const big = await budget.reserve(500);
    expect(big.grow(1000)).toBeNull();
    expect(budget.inUse).toBe(1500);
    big.release();
    expect(budget.inUse).toBe(0);
  });

  it('makes new reservations wait, first in first out, until bytes are released', async () => {
    const budget = new BodyBudget(100);
    const a = await budget.reserve(80);
    const order: string[] = [];
    const b = budget.reserve(50).then((r) => (order.push('b'), r));
    const c = budget.reserve(10).then((r) => (order.push('c'), r));
    await tick();
    // c would fit, but waits behind b: a large body is not starved by small ones.
    expect(order).toEqual([]);
    a.release();
    await Promise.all([b, c]);
    expect(order).toEqual(['b', 'c']);
    expect(budget.inUse).toBe(60);
  });

  it('never makes the oldest reservation wait, so growing readers cannot deadlock', async () => {
    const budget = new BodyBudget(100);
    const first = await budget.reserve(50);
    const second = await budget.reserve(50);
    // Both need more; only the oldest may overdraw.
    const secondGrows = second.grow(50);
    expect(secondGrows).not.toBeNull();
    expect(first.grow(50)).toBeNull();
    expect(budget.inUse).toBe(150);
    first.release();
    await secondGrows;
    expect(budget.inUse).toBe(100);
    second.release();
  });

  it('serves growing reservations before new ones', async () => {
    const budget = new BodyBudget(100);
    await budget.reserve(40);
    const b = await budget.reserve(40);
    const c = await budget.reserve(20);
    const order: string[] = [];
    const admitted = budget.reserve(10).then(() => order.push('new'));
    const grown = c.grow(20)!.then(() => order.push('grow'));
    b.release();
    await Promise.all([admitted, grown]);
    expect(order).toEqual(['grow', 'new']);
    expect(budget.inUse).toBe(90);
  });

  it('the next oldest may overdraw once the oldest is gone', async () => {
    const budget = new BodyBudget(100);
    const a = await budget.reserve(60);
    const b = await budget.reserve(40);
    const c = budget.reserve(10);
    const bGrows = b.grow(200)!;
    a.release();
    await bGrows; // b is the oldest now: granted though 240 > 100
    expect(budget.inUse).toBe(240);
    b.release();
    await c;
    expect(budget.inUse).toBe(10);
  });

  it('gives up a wait when its signal aborts, and the queue moves on', async () => {
    const budget = new BodyBudget(100);
    const a = await budget.reserve(100);
    const controller = new AbortController();
    const aborted = budget.reserve(50, controller.signal);
    const next = budget.reserve(20);
    controller.abort();
    await expect(aborted).rejects.toBeInstanceOf(BodyBudgetAbort);
    a.release();
    await next;
    expect(budget.inUse).toBe(20);
    expect(budget.stats.waits).toBe(2);
    await expect(budget.reserve(1, controller.signal)).resolves.toBeDefined();
  });
});
