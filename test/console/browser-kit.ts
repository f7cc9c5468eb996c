import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromium } from 'playwright-core';

/** Debian's Chromium; the suite never downloads a browser. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SHOTS_DIR = join(process.cwd(), 'test-results/console');

export async function launchBrowser(): Promise<Browser> {
  mkdirSync(SHOTS_DIR, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/** A signed-out page on a laptop-sized screen that records console errors and page errors. */
export interface TestPage {
  context: BrowserContext;
  page: Page;
  /** Console errors and page errors so far, then forgotten. */
  takeErrors(): string[];
}

export async function openPage(browser: Browser): Promise<TestPage> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 800 } });
  const page = await context.newPage();
  let raw: Array<{ text: string; url: string }> = [];
  page.on('console', (m) => {
    if (m.type() === 'error') raw.push({ text: m.text(), url: m.location().url });
  });
  page.on('pageerror', (e) => raw.push({ text: `pageerror: ${e.message}`, url: '' }));
  return {
    context,
    page,
    takeErrors() {
      const out = raw.map((e) => `${e.text} (${e.url})`);
      raw = [];
      return out;
    },
  };
}

export async function signIn(
  page: Page,
  base: string,
  email: string,
  password: string,
): Promise<void> {
  await page.goto(`${base}/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}/`);
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS_DIR, `${name}.png`), fullPage: true });
}
