import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { addressOf } from '../../apps/coordinator/src/shards/cluster-access';
import { startShardMoveKit, type ShardMoveKit } from '../../apps/coordinator/test/auth-kit';
import { readClusterNodes, slotOwner } from '@crawler/testing';
import { launchBrowser, openPage, shot, signIn, type TestPage } from './browser-kit';
import { buildConsoleIfStale, startConsole, type ConsoleServer } from './console-server';

// An admin moves a shard from the console's shard map: a coordinator on the local Redis Cluster
// (no agent, no web: a few queued URLs are enough), the console in Chromium. "Move…" on a shard's
// row, a master picked, the move confirmed: the coordinator answers at once (a large shard's
// move outlasts the console's 10 s calls), the page follows the move until the shard's slot is
// on that master, the row says so, and the move is audited. A viewer gets no Move action. The
// shard ({104}, FRONTIER_SHARDS 128) is a tag no other suite uses; afterAll moves its slot home.
const WITH_CLUSTER = process.env.TEST_REDIS_CLUSTER !== '0';
const SHARD = 104;

describe.skipIf(!WITH_CLUSTER)('console: moving a shard', () => {
  let kit: ShardMoveKit;
  let consoleServer: ConsoleServer;
  let browser: Browser;
  let admin: TestPage;

  beforeAll(async () => {
    await buildConsoleIfStale();
    kit = await startShardMoveKit('console-shard-move', SHARD, { hosts: 3, urlsPerHost: 1 });
    consoleServer = await startConsole(kit.url);
    browser = await launchBrowser();
    admin = await openPage(browser);
    await signIn(
      admin.page,
      consoleServer.url,
      kit.accounts.admin.email,
      kit.accounts.admin.password,
    );
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await consoleServer?.stop();
    await kit?.stop();
  }, 60_000);

  /**
   * What a wait that timed out saw, in its error: each master's view of the shard's slot owner,
   * the page's status messages and the API's row of the shard (with its move).
   */
  async function explained<T>(wait: Promise<T>): Promise<T> {
    try {
      return await wait;
    } catch (err) {
      const views = await Promise.all(
        kit.masters.map(async (m) => {
          const owner = slotOwner(await readClusterNodes(m.port).catch(() => []), kit.slot);
          return `${addressOf(m)} says ${owner ? addressOf(owner) : '?'}`;
        }),
      );
      const statuses = await admin.page.getByRole('status').allTextContents();
      const shards = await kit.call<{ items: Array<{ shard: number }> }>(
        'GET',
        `/v1/shards?cursor=${SHARD - 1}&limit=1`,
      );
      const row = shards.body.items.find((i) => i.shard === SHARD);
      throw new Error(
        `${String(err)}\nslot ${kit.slot}: ${views.join('; ')}\nstatus: ${JSON.stringify(statuses)}` +
          `\nGET /v1/shards: ${JSON.stringify(row)}`,
        { cause: err },
      );
    }
  }

  it('moves a shard to the master an admin picks, and shows where it is now', async () => {
    const { page } = admin;
    const { home: from, to } = kit;

    await page.goto(`${consoleServer.url}/agents`);
    await page.getByRole('heading', { level: 1, name: 'Agents and shards' }).waitFor();
    const row = page.locator(`tr[data-shard="${SHARD}"]`);
    await explained(row.getByText(addressOf(from), { exact: true }).waitFor());
    await row.getByRole('button', { name: `Move shard ${SHARD}…` }).click();
    await row.getByLabel(`Move shard ${SHARD} to`).selectOption(addressOf(to));
    await shot(page, '20-shard-move-confirm');
    await row.getByRole('button', { name: `Move shard ${SHARD}`, exact: true }).click();
    // Started (answered before it ended), then followed to its end.
    await explained(
      page
        .getByRole('status')
        .filter({ hasText: `Shard ${SHARD} is moving to ${addressOf(to)}` })
        .waitFor({ timeout: 10_000 }),
    );
    await explained(
      page
        .getByRole('status')
        .filter({ hasText: `Shard ${SHARD} moved` })
        .waitFor({ timeout: 30_000 }),
    );
    await explained(row.getByText(addressOf(to), { exact: true }).waitFor({ timeout: 10_000 }));
    await shot(page, '21-shard-moved');

    expect((await kit.ownerNow())?.id).toBe(to.id);
    const audit = await kit.call<{ items: Array<{ target: string; after: { status: string } }> }>(
      'GET',
      '/v1/audit?action=shards.move',
    );
    expect(audit.body.items.map((a) => [a.target, a.after.status])).toEqual([
      [`shard:${SHARD}`, 'done'],
    ]);
    expect(admin.takeErrors()).toEqual([]);
  }, 90_000);

  it('gives a viewer no Move action', async () => {
    const v = await openPage(browser);
    await signIn(
      v.page,
      consoleServer.url,
      kit.accounts.viewer.email,
      kit.accounts.viewer.password,
    );
    await v.page.goto(`${consoleServer.url}/agents`);
    const row = v.page.locator(`tr[data-shard="${SHARD}"]`);
    await row.waitFor();
    expect(await v.page.getByRole('button', { name: /^Move shard/ }).count()).toBe(0);
    expect(v.takeErrors()).toEqual([]);
    await v.context.close();
  }, 30_000);
});
