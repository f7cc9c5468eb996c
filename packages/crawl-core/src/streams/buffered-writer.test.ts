import { describe, expect, it } from 'vitest';
import { BufferedWriter } from './buffered-writer';

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

describe('BufferedWriter.settled', () => {
  it('waits for a failed batch to be written again, even when a later batch got through', async () => {
    const written: number[][] = [];
    let failNext = true;
    let releaseFirst!: () => void;
    const firstGate = new Promise<void>((r) => (releaseFirst = r));
    const w = new BufferedWriter<number>(
      async (batch) => {
        if (batch[0] === 1 && failNext) {
          await firstGate;
          failNext = false;
          throw new Error('Redis away');
        }
        written.push(batch);
      },
      () => undefined,
      100,
      1000,
    );
    w.push(1);
    w.push(2);
    void w.flush(); // batch A, in flight
    let settledA = false;
    void w.settled().then(() => (settledA = true));
    w.push(3);
    void w.flush(); // batch B, queued behind A
    releaseFirst(); // A fails and goes back to the buffer; B is written
    await tick(20);
    expect(written).toEqual([[3]]);
    expect(settledA).toBe(false);
    await w.flush(); // A again
    await tick();
    expect(written).toEqual([[3], [1, 2]]);
    expect(settledA).toBe(true);
  });

  it('resolves at once when nothing is unwritten', async () => {
    const w = new BufferedWriter<number>(
      async () => undefined,
      () => undefined,
      10,
      1000,
    );
    await w.settled();
    w.push(1);
    await w.flush();
    await w.settled();
  });
});
