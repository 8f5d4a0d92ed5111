import { spawn, type ChildProcess } from 'node:child_process';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { artifacts } from './browser';

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

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${artifacts}${name}.png`, fullPage: true });
}

/** ffmpeg publishing a test pattern with sound to an RTMP URL, as OBS would (2 s keyframes). */
export function publish(url: string): { child: ChildProcess; output: () => string } {
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
  return { child, output: () => output };
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
