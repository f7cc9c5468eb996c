import { describe, expect, it } from 'vitest';
import { HostPacer } from './host-pacer';

describe('HostPacer', () => {
  it('waits the configured gap after a request ends', async () => {
    const p = new HostPacer(40);
    await p.wait(); // first request: no wait
    p.done(1);
    const t0 = performance.now();
    await p.wait();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(39.5);
  });

  it('ends every wait at once when the stop signal aborts, and waits no more after it', async () => {
    const stop = new AbortController();
    const pacers = Array.from({ length: 50 }, () => new HostPacer(60_000));
    for (const p of pacers) p.done(1);
    const t0 = performance.now();
    const waits = Promise.all(pacers.map((p) => p.wait(stop.signal)));
    setTimeout(() => stop.abort(), 20);
    await waits;
    expect(performance.now() - t0).toBeLessThan(1000);
    await pacers[0]!.wait(stop.signal);
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(pacers[0]!.remainingMs()).toBeGreaterThan(50_000);
  });

  it('slows down after slow responses (10 × fetch time) and honours Crawl-delay', () => {
    const p = new HostPacer(100);
    p.done(50);
    expect(p.currentGapMs()).toBe(500);
    p.setCrawlDelay(2000);
    p.done(1);
    expect(p.currentGapMs()).toBe(2000);
  });

  it('caps the adaptive part, never the configured gap', () => {
    const p = new HostPacer(60_000, 0, 10, 30_000);
    p.done(10_000);
    expect(p.currentGapMs()).toBe(60_000);
    const q = new HostPacer(10, 0, 10, 30_000);
    q.done(10_000);
    expect(q.currentGapMs()).toBe(30_000);
  });
});
