import { describe, expect, it } from 'vitest';
import { HostSlots, OVERLOADED_BUDGET_WAITERS, OVERLOADED_ELU } from './host-slots';

const load = (elu: number, budgetWaiters = 0) => ({ elu, budgetWaiters });

describe('HostSlots', () => {
  it('shrinks while the event loop is overloaded, down to the minimum, and never cuts what is held', () => {
    const slots = new HostSlots(64, 5000, 256);
    expect(slots.room(0)).toBe(256);
    slots.adjust(load(OVERLOADED_ELU + 0.01), 256);
    expect(slots.current).toBe(217);
    expect(slots.room(256)).toBe(0);
    for (let i = 0; i < 50; i++) slots.adjust(load(1), 256);
    expect(slots.current).toBe(64);
  });

  it('grows while the loop has room and the slots are used, up to the maximum', () => {
    const slots = new HostSlots(64, 1000, 256);
    slots.adjust(load(0.2), 100); // room, but not using its slots: no growth
    expect(slots.current).toBe(256);
    slots.adjust(load(0.2), 256);
    expect(slots.current).toBe(308);
    for (let i = 0; i < 50; i++) slots.adjust(load(0.2), slots.current);
    expect(slots.current).toBe(1000);
  });

  it('shrinks while requests wait for the body budget, and does not grow while any do', () => {
    const slots = new HostSlots(64, 1000, 256);
    slots.adjust(load(0.2, OVERLOADED_BUDGET_WAITERS), 256);
    expect(slots.current).toBe(217);
    slots.adjust(load(0.2, 0.5), 217);
    expect(slots.current).toBe(217);
  });

  it('holds between the two thresholds', () => {
    const slots = new HostSlots(64, 1000, 256);
    slots.adjust(load(0.85), 256);
    expect(slots.current).toBe(256);
  });

  it('is pinned when min equals max', () => {
    const slots = new HostSlots(300, 300, 256);
    expect(slots.current).toBe(300);
    slots.adjust(load(1), 300);
    slots.adjust(load(0), 300);
    expect(slots.current).toBe(300);
  });
});
