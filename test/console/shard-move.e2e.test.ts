import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { urlFingerprint } from '@crawler/domain/url';
import {
  keySlot,
  readClusterNodes,
  restoreSlotOwner,
  sharedLocalRedisCluster,
  slotOwner,
  type ClusterNode,
} from '@crawler/testing';
import { startAuthKit, type AuthKit } from '../../apps/coordinator/test/auth-kit';
import { launchBrowser, openPage, shot, signIn, type TestPage } from './browser-kit';
import { buildConsoleIfStale, startConsole, type ConsoleServer } from './console-server';

// An admin moves a shard from the console's shard map: a coordinator on the local Redis Cluster
// (no agent, no web: a few queued URLs are enough), the console in Chromium. "Move…" on a shard's
// row, a master picked, the move confirmed: the shard's slot is on that master, the row says so,
// and the move is audited. A viewer gets no Move action. The shard ({104}, FRONTIER_SHARDS 128)
// is a tag no other suite uses; afterAll moves its slot home.
const WITH_CLUSTER = process.env.TEST_REDIS_CLUSTER !== '0';
const SHARD = 104;

describe.skipIf(!WITH_CLUSTER)('console: moving a shard', () => {
  let kit: AuthKit;
  let consoleServer: ConsoleServer;
  let browser: Browser;
  let admin: TestPage;
  let home: ClusterNode | undefined;
  let port = 0;
  const slot = keySlot(`{${SHARD}}`);

  beforeAll(async () => {
    const cluster = await sharedLocalRedisCluster();
    port = cluster.ports[0]!;
    home = slotOwner(await readClusterNodes(port), slot);
    await buildConsoleIfStale();
    kit = await startAuthKit('console-shard-move', {
      REDIS_URL: cluster.url,
      REDIS_CLUSTER: '1',
      FRONTIER_SHARDS: '128',
    });
    const { frontier } = kit.coordinator.services;
    const hosts: string[] = [];
    for (let i = 0; hosts.length < 3; i++)
      if (frontier.shardOf(`h${i}.console-move.test`) === SHARD)
        hosts.push(`h${i}.console-move.test`);
    await frontier.enqueue(
      hosts.map((host) => {
        const url = `http://${host}/`;
        return { url, urlFp: urlFingerprint(url), host, depth: 0, source: 'seed' as const };
      }),
    );
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
    if (home) await restoreSlotOwner(slot, home).catch(() => undefined);
    await kit?.stop();
  }, 60_000);

  it('moves a shard to the master an admin picks, and shows where it is now', async () => {
    const { page } = admin;
    const from = home!;
    const masters = (await readClusterNodes(port)).filter((n) => n.master);
    const to = masters.filter((m) => m.id !== from.id).sort((a, b) => a.port - b.port)[0]!;
    const address = (n: ClusterNode) => `${n.host}:${n.port}`;

    await page.goto(`${consoleServer.url}/agents`);
    await page.getByRole('heading', { level: 1, name: 'Agents and shards' }).waitFor();
    const row = page.locator(`tr[data-shard="${SHARD}"]`);
    await row.getByText(address(from), { exact: true }).waitFor();
    await row.getByRole('button', { name: `Move shard ${SHARD}…` }).click();
    await row.getByLabel(`Move shard ${SHARD} to`).selectOption(address(to));
    await shot(page, '20-shard-move-confirm');
    await row.getByRole('button', { name: `Move shard ${SHARD}`, exact: true }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Shard ${SHARD} moved` })
      .waitFor({ timeout: 30_000 });
    await row.getByText(address(to), { exact: true }).waitFor({ timeout: 10_000 });
    await shot(page, '21-shard-moved');

    expect(slotOwner(await readClusterNodes(port), slot)?.id).toBe(to.id);
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
