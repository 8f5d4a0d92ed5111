import { spawn, type ChildProcess } from 'node:child_process';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { artifacts, cspViolations, launchBrowser } from '../../harness/browser';
import { startLocalSystem, type LocalSystem } from '../../harness/local-system';

/** What a story in the browser runs on; `system` and `browser` are there inside tests (they open in `beforeAll`). */
export interface BrowserStory {
  readonly system: LocalSystem;
  readonly browser: Browser;
  /** A browser context that closes with the story. */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  /** A page at desktop size that may use the clipboard (the console's copy buttons), for the admin. */
  adminPage(): Promise<Page>;
  /** Runs `cleanup` when the story closes, before the browser and the system. */
  atClose(cleanup: () => unknown): void;
  /** `publish`, stopped when the story closes. */
  publish(url: string): Publisher;
}

/**
 * `npm start`'s program and a Chromium for the enclosing suite: started before it, and after it
 * closed with everything registered by `newContext` and `atClose`.
 */
export function browserStory(env: Record<string, string> = {}): BrowserStory {
  let system: LocalSystem | undefined;
  let browser: Browser | undefined;
  const cleanups: (() => unknown)[] = [];
  beforeAll(async () => {
    system = await startLocalSystem(env);
    browser = await launchBrowser();
  }, 90_000);
  afterAll(async () => {
    // A cleanup that throws, even at once, must not keep the browser and the system running.
    for (const cleanup of cleanups.reverse()) await Promise.resolve().then(cleanup).catch(() => undefined);
    const refused = browser ? [...cspViolations(browser)] : [];
    await browser?.close();
    await system?.stop();
    // Every page of every story ran under the site's Content-Security-Policy: it may refuse nothing they need.
    expect(refused, 'Content-Security-Policy violations').toEqual([]);
  });
  const opened = <T>(value: T | undefined): T => {
    if (!value) throw new Error('the story opens in beforeAll: use it inside tests only');
    return value;
  };
  return {
    get system() {
      return opened(system);
    },
    get browser() {
      return opened(browser);
    },
    async newContext(options) {
      const context = await opened(browser).newContext(options);
      cleanups.push(() => context.close());
      return context;
    },
    async adminPage() {
      const context = await this.newContext({ viewport: { width: 1280, height: 900 } });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: opened(system).urls.api });
      return context.newPage();
    },
    atClose(cleanup) {
      cleanups.push(cleanup);
    },
    publish(url) {
      const publisher = publish(url);
      cleanups.push(() => publisher.child.kill('SIGTERM'));
      return publisher;
    },
  };
}

/**
 * Console errors of a page, except the browser's own log lines for HTTP
 * answers a story expects (`Failed to load resource: … status of 409`).
 */
export function watchConsole(page: Page, name: string, problems: string[], expectedStatuses: () => number[]): void {
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const status = /status of (\d{3})/.exec(message.text())?.[1];
    if (status && expectedStatuses().includes(Number(status))) return;
    problems.push(`${name}: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => problems.push(`${name}: uncaught ${error.message}`));
}

/** The console's sign-in as the owner, with the admin password, up to the events list. */
export async function signInAsOwner(page: Page, system: LocalSystem): Promise<void> {
  await page.goto(`${system.urls.api}/admin/`);
  await page.getByLabel('Login name').fill('owner');
  await page.getByLabel('Password').fill(system.adminPassword);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Events' }).waitFor();
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${artifacts}${name}.png`, fullPage: true });
}

export interface Publisher {
  child: ChildProcess;
  output(): string;
  /** Rejects when ffmpeg exits (a story's publisher never should), with what it printed. */
  exited: Promise<never>;
}

/** ffmpeg publishing a test pattern with sound to an RTMP URL, as OBS would (2 s keyframes). */
export function publish(url: string): Publisher {
  let output = '';
  const child = spawn(
    'ffmpeg',
    [
      ...['-hide_banner', '-loglevel', 'warning', '-nostdin', '-re'],
      ...['-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=25'],
      ...['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-pix_fmt', 'yuv420p', '-g', '50'],
      ...['-c:a', 'aac', '-b:a', '96k', '-f', 'flv', url],
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`ffmpeg exited ${code}: ${output}`))));
  exited.catch(() => undefined);
  return { child, output: () => output, exited };
}

export async function noHorizontalScroll(page: Page): Promise<void> {
  const overflow = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth <= width) return null;
    // Name the first element that sticks out, to say what to fix.
    const culprit = [...document.querySelectorAll<HTMLElement>('body *')].find(
      (element) => element.getBoundingClientRect().right > width + 1,
    );
    return `${document.documentElement.scrollWidth - width}px, first: ${culprit?.outerHTML.slice(0, 120)}`;
  });
  expect(overflow, 'page scrolls sideways').toBeNull();
}

/** Waits until the page's first `<video>` has played past `seconds` and is still moving. */
export async function videoAdvances(page: Page, selector = 'video', timeout = 60_000): Promise<void> {
  await page.waitForFunction((css) => (document.querySelector<HTMLVideoElement>(css)?.currentTime ?? 0) > 1, selector, { timeout });
  const before = await page.evaluate((css) => document.querySelector<HTMLVideoElement>(css)!.currentTime, selector);
  await page.waitForFunction(
    ([css, start]) => document.querySelector<HTMLVideoElement>(css as string)!.currentTime > (start as number),
    [selector, before] as const,
    { timeout },
  );
}

/** Signs in on the console's form (an empty login name is the owner with the admin password). */
export async function signIn(page: Page, username: string, password: string): Promise<void> {
  await page.getByRole('heading', { name: 'Sign in to Stagedoor' }).waitFor();
  await page.getByLabel('Login name').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Nothing inside a card (`.card`, a ticket, a table's scroll region) needs a sideways scroll. */
export async function noSidewaysScrollInCards(page: Page): Promise<void> {
  const overflowing = await page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('.card, .ticket, .table-wrap, .card *')]
      // A text field scrolls its own long value, and visually hidden text clips itself: neither is the layout overflowing.
      .filter((element) => !element.matches('input, textarea, select, .sr-only') && element.offsetParent !== null && element.scrollWidth > element.clientWidth + 1)
      .filter((element) => getComputedStyle(element).overflowX !== 'visible' || element.matches('.card, .ticket'))
      .map((element) => `${element.scrollWidth - element.clientWidth}px in ${element.outerHTML.slice(0, 100)}`),
  );
  expect(overflowing, 'sideways scroll inside a card').toEqual([]);
}

export const PHONE_WIDTH = 390;
export const DESKTOP_WIDTH = 1280;

/**
 * Screenshots of the page as it is now at phone (390 px) and desktop (1280 px) width, each checked for
 * sideways scrolling of the page and inside its cards; the page is left at desktop width.
 */
export async function shotsAtBothWidths(page: Page, name: string): Promise<void> {
  const height = page.viewportSize()?.height ?? 900;
  for (const width of [PHONE_WIDTH, DESKTOP_WIDTH]) {
    await page.setViewportSize({ width, height });
    await shot(page, `${name}-${width}`);
    await noHorizontalScroll(page);
    await noSidewaysScrollInCards(page);
  }
}
