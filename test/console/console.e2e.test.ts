import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, Page } from 'playwright-core';
import type { HostLease } from '@crawler/frontier';
import { urlFingerprint } from '@crawler/domain/url';
import { startSyntheticWeb, type SyntheticWeb } from '@crawler/synthetic-web';
import {
  largestPlainHost,
  startCrawlStack,
  type CrawlStack,
} from '../../apps/coordinator/test/crawl-stack';
import { launchBrowser, openPage, shot, signIn, type TestPage } from './browser-kit';
import { buildConsoleIfStale, startConsole, type ConsoleServer } from './console-server';

// The console, driven in Chromium against a real coordinator and agent crawling the synthetic
// web. Block and rate-limit changes are judged from the web's own request log. Screenshots of
// every page go to test-results/console/ for a person to review.
let web: SyntheticWeb;
let stack: CrawlStack;
let consoleServer: ConsoleServer;
let browser: Browser;
let admin: TestPage;
let host: string;
let seed: string;
let otherSeeds: string[];
const viewer = { email: 'viewer@test.local', password: 'viewer-password-1' };
const SESSION_TTL_S = 2 * 3600;

const now = () => performance.timeOrigin + performance.now();
const requestsTo = (h: string) =>
  web
    .log()
    .filter((e) => e.host === h)
    .sort((a, b) => a.startMs - b.startMs);

async function visit(page: Page, path: string, heading: string | RegExp): Promise<void> {
  await page.goto(`${consoleServer.url}${path}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  // Let the first data arrive (or its error be shown) before judging the page.
  await page.waitForFunction(
    () => document.querySelectorAll('[role="status"] .spinner').length === 0,
    null,
    {
      timeout: 10_000,
    },
  );
}

beforeAll(async () => {
  web = await startSyntheticWeb({ seed: 5, hosts: 40, maxPagesPerHost: 400, hostile: false });
  host = largestPlainHost(web);
  seed = web.seeds.find((s) => s.includes(`//${host}`))!;
  otherSeeds = web.seeds.filter((s) => s !== seed).slice(0, 5);
  await buildConsoleIfStale();
  stack = await startCrawlStack(
    web,
    {
      CRAWLER_DEFAULT_GAP_MS: '40',
      CRAWLER_MAX_DEPTH: '20',
      // Not the default (12 h): the console's cookie must follow the coordinator's value.
      SESSION_TTL_MS: String(SESSION_TTL_S * 1000),
    },
    ['agent-console'],
  );
  const created = await fetch(`${stack.coordinator.url}/v1/users`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...stack.env.auth },
    body: JSON.stringify({ ...viewer, role: 'viewer', name: 'Vera Viewer' }),
  });
  if (created.status !== 200) throw new Error(`creating the viewer: ${await created.text()}`);
  stack.agents[0]!.start();
  consoleServer = await startConsole(stack.coordinator.url);
  browser = await launchBrowser();
  admin = await openPage(browser);
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await consoleServer?.stop();
  await stack?.stop();
  await web?.close();
}, 60_000);

describe('console in Chromium', () => {
  it('signs in and shows the overview', async () => {
    await admin.page.goto(`${consoleServer.url}/`);
    await admin.page.waitForURL(/\/login$/);
    await shot(admin.page, '01-login');
    await signIn(admin.page, consoleServer.url, stack.env.admin.email, stack.env.admin.password);
    await admin.page.getByTestId('health-tiles').waitFor();
    // Keyboard: the first Tab reaches the skip link.
    await admin.page.keyboard.press('Tab');
    expect(await admin.page.evaluate(() => document.activeElement?.textContent)).toBe(
      'Skip to content',
    );
    await shot(admin.page, '02-overview-empty');
    expect(admin.takeErrors()).toEqual([]);
    const cookies = await admin.context.cookies();
    const session = cookies.find((c) => c.name === 'console_session');
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe('Lax');
    // It lasts as long as the coordinator's session (SESSION_TTL_MS), not a fixed 12 h.
    const leftS = (session?.expires ?? 0) - Date.now() / 1000;
    expect(leftS).toBeGreaterThan(SESSION_TTL_S - 120);
    expect(leftS).toBeLessThanOrEqual(SESSION_TTL_S + 5);
  }, 60_000);

  it('adds seeds and shows what was accepted and why the rest was refused', async () => {
    const { page } = admin;
    await visit(page, '/seeds', 'Seeds');
    await page
      .getByLabel('URLs or sitemaps, one per line')
      .fill([seed, ...otherSeeds, 'not a url', 'ftp://files.example/x'].join('\n'));
    await page.getByLabel('Seed list (optional)').fill('e2e-list');
    await page.getByRole('button', { name: /^Add \d+ seeds$/ }).click();
    const heading = page.getByRole('heading', { name: /accepted$/ });
    await heading.waitFor();
    await shot(page, '03-seeds-result');
    expect(await heading.textContent()).toBe(
      `${1 + otherSeeds.length} of ${3 + otherSeeds.length} accepted`,
    );
    await page.getByRole('cell', { name: 'not a url', exact: true }).waitFor();
    // The list is shown with its size; choosing it shows its seeds.
    const listRow = page.getByRole('row', {
      name: new RegExp(`^e2e-list ${1 + otherSeeds.length} `),
    });
    await listRow.waitFor();
    await page.getByRole('button', { name: 'e2e-list', exact: true }).click();
    await page.getByRole('heading', { name: 'Seeds in e2e-list' }).waitFor();
    await page.getByRole('cell', { name: seed, exact: true }).waitFor();
    expect(admin.takeErrors()).toEqual([]);
  }, 30_000);

  it('shows pages/s rising on the overview without a reload', async () => {
    const { page } = admin;
    await visit(page, '/', 'Crawl overview');
    const tile = page.locator('.tile', { hasText: 'Pages / s' }).locator('.tile__value');
    await expect
      .poll(async () => Number(await tile.textContent()), { timeout: 45_000, interval: 1000 })
      .toBeGreaterThan(0);
    await sleep(3000);
    await shot(page, '04-overview-crawling');
    expect(admin.takeErrors()).toEqual([]);
  }, 60_000);

  it('blocks a host from its page, and the web sees its fetches stop', async () => {
    const { page } = admin;
    for (let i = 0; i < 100 && requestsTo(host).length < 10; i++) await sleep(200);
    await visit(page, `/hosts/${host}`, host);
    await page.getByRole('button', { name: 'Block host' }).click();
    await page.getByText('Host blocked: its fetches stop now.').waitFor();
    const blockedAt = now();
    await sleep(2000);
    expect(
      requestsTo(host)
        .filter((e) => e.startMs > blockedAt + 50)
        .map((e) => e.url),
    ).toEqual([]);
    await page.getByText('Blocked: nothing is fetched from this host').waitFor();
    await shot(page, '05-host-blocked');

    await page.getByRole('button', { name: 'Unblock host' }).click();
    await page.getByText('Host unblocked.').waitFor();
    const unblockedAt = now();
    await expect
      .poll(() => requestsTo(host).filter((e) => e.startMs > unblockedAt).length, {
        timeout: 10_000,
      })
      .toBeGreaterThanOrEqual(3);
    expect(admin.takeErrors()).toEqual([]);
  }, 60_000);

  it('changes a host’s rate limit, and the web sees the new pace', async () => {
    const { page } = admin;
    await page.getByLabel(/^Rate limit/).fill('2');
    await page.getByRole('button', { name: 'Save rate limit' }).click();
    await page.getByText('Rate limit set to 2 req/s.').waitFor();
    const changedAt = now();
    await sleep(3500);
    const later = requestsTo(host).filter((e) => e.startMs > changedAt + 600);
    expect(later.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < later.length; i++)
      expect(later[i]!.startMs - later[i - 1]!.endMs).toBeGreaterThanOrEqual(500 - 2);
    await page.getByText('hosts.update').first().waitFor();
    await shot(page, '06-host-rate-limit');
    expect(admin.takeErrors()).toEqual([]);
  }, 30_000);

  it('sets a host’s daily budget and connections, and the frontier holds them', async () => {
    const { page } = admin;
    await page.getByLabel(/^Daily page budget/).fill('123');
    await page.getByLabel(/^Connections at once/).fill('2');
    await page.getByRole('button', { name: 'Save limits' }).click();
    await page.getByText('Daily budget set to 123 pages.').waitFor();
    await page.getByText(/Daily page budget .*now 123\)/).waitFor();
    const fields = (await stack.coordinator.services.frontier.hostState(host)).fields;
    expect(fields).toMatchObject({ daily_budget: '123', max_conn: '2' });
    expect(admin.takeErrors()).toEqual([]);
  }, 30_000);

  it('adds and removes a URL block pattern from the host page, audited and published', async () => {
    const { page } = admin;
    const blockRules = async () =>
      (await (
        await fetch(`${stack.coordinator.url}/v1/block-rules`, { headers: stack.env.auth })
      ).json()) as { version: number; rules: Array<{ host: string; patterns: string[] }> };
    const before = await blockRules();
    const field = page.getByLabel(/^Pattern: a path prefix/);
    // A refused pattern says why, and nothing changes.
    await field.fill('private/');
    await page.getByRole('button', { name: 'Add pattern' }).click();
    await page.getByText('The block patterns were not changed').waitFor();
    await page
      .getByText(/must start with "\/"/)
      .first()
      .waitFor();
    expect((await blockRules()).version).toBe(before.version);
    // The browser logs the refused call (400) as a failed resource: that one error only.
    expect(admin.takeErrors()).toEqual([
      expect.stringMatching(/status of 400 .*\/api\/trpc\/hosts\.addBlockPattern\?batch=1\)$/),
    ]);

    await field.fill('/caf%c3%a9/*.pdf');
    await page.getByRole('button', { name: 'Add pattern' }).click();
    await page.getByText('Pattern added: agents drop matching links within seconds.').waitFor();
    // Shown in canonical form, with its Remove button; the audit trail names the change.
    await page.getByRole('cell', { name: '/caf%C3%A9/*.pdf', exact: true }).waitFor();
    await page.getByText('hosts.addBlockPattern').first().waitFor();
    const added = await blockRules();
    expect(added.version).toBeGreaterThan(before.version);
    expect(added.rules.find((r) => r.host === host)?.patterns).toEqual(['/caf%C3%A9/*.pdf']);
    await shot(page, '06b-host-block-pattern');

    await page.getByRole('button', { name: 'Remove pattern /caf%C3%A9/*.pdf' }).click();
    await page.getByText('Pattern /caf%C3%A9/*.pdf removed.').waitFor();
    await page.getByText(`No block pattern on ${host}.`).waitFor();
    expect((await blockRules()).rules.find((r) => r.host === host)?.patterns ?? []).toEqual([]);
    expect(admin.takeErrors()).toEqual([]);
  }, 30_000);

  it('opens a URL’s capture and shows its raw response', async () => {
    const { page } = admin;
    await visit(page, `/urls?url=${encodeURIComponent(seed)}`, 'URL inspector');
    await page.getByTestId('verdict').waitFor();
    await page
      .getByRole('button', { name: /^View raw response/ })
      .first()
      .click();
    const raw = page.getByTestId('capture-raw');
    await raw.waitFor({ timeout: 10_000 });
    expect(await raw.textContent()).toMatch(/<html/i);
    await shot(page, '07-url-inspector');
    expect(admin.takeErrors()).toEqual([]);
  }, 30_000);

  it('shows a dead agent’s leases with their expiry, and releases them now', async () => {
    const { page } = admin;
    const { frontier, redis, agentsKey } = stack.coordinator.services;
    // An agent that died holding leases: leases taken in its name, a heartbeat a minute old.
    // The crawl may have nothing ready: a host of its own is queued and leased at once (its
    // URL is new, so the live agent, polling, rarely gets there first — then another is tried).
    let ghost: HostLease[] = [];
    for (let i = 0; i < 100 && ghost.length === 0; i++) {
      const url = `http://ghost-${i}.e2e.test/`;
      await frontier.enqueue([
        { url, urlFp: urlFingerprint(url), host: `ghost-${i}.e2e.test`, depth: 0, source: 'seed' },
      ]);
      ghost = await frontier.lease('ghost-e2e', 2);
      if (ghost.length === 0) await sleep(100);
    }
    expect(ghost.length).toBeGreaterThan(0);
    // Long enough not to expire while the page is driven (a dead agent renews nothing).
    for (const l of ghost) await frontier.extend(l, 300_000);
    await redis.zadd(agentsKey, Date.now() - 60_000, 'ghost-e2e');

    await visit(page, '/', 'Crawl overview');
    await page
      .locator('.tile', { hasText: 'Open leases' })
      .getByText(`${ghost.length} by dead ones`)
      .waitFor();
    await visit(page, '/agents', 'Agents and shards');
    const row = page.locator('tr[data-agent="ghost-e2e"]');
    await row.getByText('dead', { exact: true }).waitFor();
    await row
      .getByText(/expires /)
      .first()
      .waitFor();
    expect(await row.getByRole('link', { name: ghost[0]!.host }).count()).toBe(1);
    // Live agents have no such button.
    expect(
      await page
        .locator('tr[data-agent="agent-console"]')
        .getByRole('button', { name: 'Release leases now' })
        .count(),
    ).toBe(0);
    await shot(page, '09b-agents-dead');
    await row.getByRole('button', { name: 'Release leases now' }).click();
    await page
      .getByRole('status')
      .filter({
        hasText: `${ghost.length} lease${ghost.length === 1 ? '' : 's'} of ghost-e2e released`,
      })
      .waitFor();
    const open = await frontier.openLeases();
    expect(open.filter((l) => l.agentId === 'ghost-e2e')).toEqual([]);
    await row.locator('td.num', { hasText: /^0$/ }).first().waitFor();
    expect(await row.getByRole('button', { name: 'Release leases now' }).count()).toBe(0);
    await redis.zrem(agentsKey, 'ghost-e2e');
    expect(admin.takeErrors()).toEqual([]);
  }, 60_000);

  it('renders every other page without console errors', async () => {
    const { page } = admin;
    const pages: Array<[string, string, string]> = [
      ['/hosts', 'Hosts', '08-hosts'],
      ['/agents', 'Agents and shards', '09-agents'],
      ['/dead-letters', 'Dead letters', '10-dead-letters'],
      ['/audit', 'Audit log', '11-audit'],
      ['/users', 'Users and tokens', '12-users'],
      ['/settings', 'Settings', '13-settings'],
    ];
    for (const [path, title, name] of pages) {
      await visit(page, path, title);
      await sleep(500);
      await shot(page, name);
      expect(admin.takeErrors(), path).toEqual([]);
    }
  }, 90_000);

  it('lets a viewer see the crawl but change nothing', async () => {
    const v = await openPage(browser);
    await signIn(v.page, consoleServer.url, viewer.email, viewer.password);
    await expect.poll(() => v.page.getByRole('link', { name: 'Audit' }).count()).toBe(0);
    await visit(v.page, '/seeds', 'Seeds');
    await v.page.getByText('Adding seeds needs the operator role').waitFor();
    await v.page.getByRole('button', { name: 'e2e-list', exact: true }).waitFor();
    await shot(v.page, '14-viewer-seeds');
    await visit(v.page, `/hosts/${host}`, host);
    expect(await v.page.getByRole('button', { name: /Block host|Unblock host/ }).isDisabled()).toBe(
      true,
    );
    expect(await v.page.getByRole('button', { name: 'Save rate limit' }).isDisabled()).toBe(true);
    expect(await v.page.getByRole('button', { name: 'Add pattern' }).isDisabled()).toBe(true);
    await shot(v.page, '15-viewer-host');
    await visit(v.page, '/users', 'Users and tokens');
    expect(await v.page.getByRole('heading', { name: 'Users', exact: true }).count()).toBe(0);
    expect(v.takeErrors()).toEqual([]);

    // The coordinator enforces the role anyway, and the console refuses cross-site changes.
    const block = (origin: string) =>
      v.context.request.post(`${consoleServer.url}/api/trpc/hosts.update`, {
        headers: { origin, 'content-type': 'application/json' },
        data: { host, patch: { blocked: true } },
      });
    const appCode = async (r: Awaited<ReturnType<typeof block>>) =>
      ((await r.json()) as { error: { data: { appCode: string } } }).error.data.appCode;
    const forbidden = await block(consoleServer.url);
    expect(forbidden.status()).toBe(403);
    expect(await appCode(forbidden)).toBe('FORBIDDEN');
    const crossSite = await block('https://evil.example');
    expect(crossSite.status()).toBe(403);
    expect(await appCode(crossSite)).toBe('CSRF_REJECTED');
    await v.context.close();
  }, 60_000);

  it("changes a user's role only when Save is pressed, and says so", async () => {
    const { page } = admin;
    const roleOf = async (email: string): Promise<string | undefined> => {
      const r = await fetch(`${stack.coordinator.url}/v1/users?limit=200`, {
        headers: stack.env.auth,
      });
      const body = (await r.json()) as { items: Array<{ email: string; role: string }> };
      return body.items.find((u) => u.email === email)?.role;
    };
    await visit(page, '/users', 'Users and tokens');
    const select = page.getByRole('combobox', { name: `Role of ${viewer.email}`, exact: true });
    const save = page.getByRole('button', { name: `Save role of ${viewer.email}`, exact: true });
    expect(await save.isDisabled()).toBe(true);

    // Picking a role changes nothing yet.
    await select.selectOption('operator');
    await page.getByText('not saved', { exact: true }).waitFor();
    expect(await save.isDisabled()).toBe(false);
    await sleep(500);
    expect(await roleOf(viewer.email)).toBe('viewer');

    // Save sends it, and the page confirms.
    await save.click();
    await page
      .getByRole('status')
      .filter({ hasText: `Saved: ${viewer.email} is now operator (was viewer).` })
      .waitFor();
    expect(await roleOf(viewer.email)).toBe('operator');
    await expect.poll(() => save.isDisabled()).toBe(true);
    expect(await page.getByText('not saved', { exact: true }).count()).toBe(0);
    await shot(page, '16-users-role-saved');

    // Back to viewer, the same way.
    await select.selectOption('viewer');
    await save.click();
    await page
      .getByRole('status')
      .filter({ hasText: `Saved: ${viewer.email} is now viewer (was operator).` })
      .waitFor();
    expect(await roleOf(viewer.email)).toBe('viewer');
    expect(admin.takeErrors()).toEqual([]);
  }, 60_000);
});
