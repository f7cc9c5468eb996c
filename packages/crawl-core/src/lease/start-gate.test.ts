import { describe, expect, it } from 'vitest';
import { StartGate } from './start-gate';

describe('StartGate', () => {
  it('spaces starts by the gap, whoever asks, in the order asked', async () => {
    const gate = new StartGate(() => 40);
    const starts: [number, number][] = [];
    await Promise.all(
      [0, 1, 2, 3].map(async (i) => {
        await gate.turn();
        starts.push([i, performance.now()]);
      }),
    );
    expect(starts.map(([i]) => i)).toEqual([0, 1, 2, 3]);
    for (let i = 1; i < starts.length; i++)
      expect(starts[i]![1] - starts[i - 1]![1]).toBeGreaterThanOrEqual(40);
  });

  it('follows a gap that changes between turns', async () => {
    let gap = 10;
    const gate = new StartGate(() => gap);
    await gate.turn();
    gap = 80;
    const t0 = performance.now();
    await gate.turn();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(80);
    expect(gate.remainingMs()).toBeGreaterThan(0);
  });
});
