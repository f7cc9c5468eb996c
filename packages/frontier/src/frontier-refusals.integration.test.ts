import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frontierTestBed, testUrl } from './testing/frontier-test-kit';

/**
 * What keeps URLs from being fetched, as the frontier can tell: dead letters by reason (a parked
 * host, a URL that kept failing) and hosts waiting for the next UTC day because their daily
 * budget is spent. The one-shot crawl reports them, and ends once only these are left.
 */
const bed = frontierTestBed('refusals');
const urls = (host: string, n: number) =>
  Array.from({ length: n }, (_, i) => testUrl(host, `p${i}`));

beforeAll(() => bed.open());
afterAll(() => bed.close());

describe('dead letters by reason', () => {
  it('counts a parked host’s URLs, later ones for it and failed ones, and forgets re-queued ones', async () => {
    const f = bed.make({ maxAttempts: 1 });
    expect(await f.deadLettersByReason()).toEqual({});
    await f.enqueue([...urls('refused.test', 3), ...urls('failing.test', 1)]);
    const leases = await f.lease('a', 2);
    expect(leases).toHaveLength(2);
    for (const l of leases) {
      if (l.host === 'refused.test')
        await f.complete(l, {
          processed: 0,
          delayMs: 0,
          paceMs: 1,
          parkReason: 'private_address',
        });
      else await f.fail(l, { index: 0, error: 'http_503', retryAfterMs: 0 });
    }
    // A link found later to the parked host goes straight to the dead letters.
    await f.enqueue([testUrl('refused.test', 'later')]);
    expect(await f.deadLettersByReason()).toEqual({ private_address: 4, http_503: 1 });
    expect((await f.stats()).deadLetters).toBe(5);
    expect(await f.isIdle()).toBe(true);

    expect(await f.requeueDeadLetters({ host: 'refused.test' })).toBe(4);
    expect(await f.deadLettersByReason()).toEqual({ http_503: 1 });
  });
});

describe('hosts whose daily budget is spent', () => {
  it('are counted with their queued URLs once a lease finds the budget gone', async () => {
    const f = bed.make({ dailyBudget: 2 });
    await f.enqueue([...urls('budget.test', 5), ...urls('other.test', 1)]);
    expect(await f.budgetSpent()).toEqual({ hosts: 0, urls: 0 });
    for (const l of await f.lease('a', 2))
      await f.complete(l, { processed: l.urls.length, delayMs: 0, paceMs: 1 });
    expect(await f.lease('a', 2)).toEqual([]); // the budget host now waits for tomorrow
    expect(await f.budgetSpent()).toEqual({ hosts: 1, urls: 3 });
    const s = await f.stats();
    expect(s).toMatchObject({ scheduledHosts: 1, openLeases: 0, queuedUrls: 3 });
  });
});
