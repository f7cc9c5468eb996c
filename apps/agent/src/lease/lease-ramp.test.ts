import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { LeaseRamp } from './lease-ramp';

describe('LeaseRamp', () => {
  it('grants a second’s worth at once, then refills at the configured rate', async () => {
    const ramp = new LeaseRamp(100);
    expect(ramp.allow(2000)).toBe(100);
    ramp.took(100);
    expect(ramp.allow(2000)).toBe(0);
    await sleep(220);
    const refilled = ramp.allow(2000);
    expect(refilled).toBeGreaterThanOrEqual(18);
    expect(refilled).toBeLessThanOrEqual(100);
  });

  it('never grants more than asked, nor more than the bucket holds', async () => {
    const ramp = new LeaseRamp(10);
    expect(ramp.allow(3)).toBe(3);
    ramp.took(3);
    await sleep(2500);
    expect(ramp.allow(1000)).toBe(10);
  });
});
