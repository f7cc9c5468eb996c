import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { LeaseRamp } from './lease-ramp';

describe('LeaseRamp', () => {
  it('lets the leases held grow by the configured rate a second, from a second’s worth', async () => {
    const ramp = new LeaseRamp(100);
    expect(ramp.room(0, 2000)).toBe(100);
    expect(ramp.room(100, 2000)).toBe(0);
    await sleep(250);
    const more = ramp.room(100, 2000);
    expect(more).toBeGreaterThanOrEqual(20);
    expect(more).toBeLessThanOrEqual(60);
  });

  it('never lets more be held than the maximum, and replaces ended leases at once', async () => {
    const ramp = new LeaseRamp(10);
    expect(ramp.room(3, 50)).toBe(7);
    await sleep(2100);
    const grown = ramp.room(0, 50);
    expect(grown).toBeGreaterThanOrEqual(30);
    expect(grown).toBeLessThanOrEqual(40);
    // Ramped up: however many leases ended, all may be replaced now.
    expect(ramp.room(0, 20)).toBe(20);
    expect(ramp.room(20, 20)).toBe(0);
  });
});
