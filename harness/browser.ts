import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

/** Debian's chromium, headless, with nothing that reaches out to the network on its own. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Where the browser tests put their screenshots (git-ignored). */
export const artifacts = fileURLToPath(new URL('../test-artifacts/web/', import.meta.url));

const violations = new WeakMap<Browser, string[]>();

/**
 * Every Content-Security-Policy violation in any page (or worker) of `browser`'s contexts: what a page
 * tried to load, run or connect to that the site's policy (web/security-headers.ts) does not allow.
 */
export function cspViolations(browser: Browser): string[] {
  return violations.get(browser) ?? [];
}

/** Reports a context's CSP violations, as the document sees them and as Chromium logs them. */
async function watchCsp(context: BrowserContext, found: string[]): Promise<BrowserContext> {
  await context.exposeBinding('__stagedoorCspViolation', ({ page }, text: string) => found.push(`${page.url()}: ${text}`));
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      const report = (window as unknown as { __stagedoorCspViolation(text: string): void }).__stagedoorCspViolation;
      report(`${event.effectiveDirective} refused ${event.blockedURI || '(inline)'} (${event.sourceFile}:${event.lineNumber})`);
    });
  });
  context.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) found.push(`console: ${message.text()}`);
  });
  return context;
}

export async function launchBrowser(): Promise<Browser> {
  await mkdir(artifacts, { recursive: true });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const found: string[] = [];
  violations.set(browser, found);
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => watchCsp(await newContext(options), found);
  return browser;
}
