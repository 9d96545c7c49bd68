import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';

/*
 * What the browser tests of the web/ pages share: Debian's Chromium driven by playwright-core, started the way
 * these machines need (no network beyond loopback, no background services), and a page that records every page
 * error, console error and failed request so a test can insist on none.
 */

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);

/** Says once, on the test's own output, why a browser test file is skipped and how to run it. */
export function warnIfNoChromium(file: string, what: string): void {
  if (HAVE_CHROMIUM) return;
  console.warn(
    `${file} SKIPPED: no Chromium at ${CHROMIUM}. Install Debian's package (apt-get install -y chromium) or point ` +
      `CHROMIUM_PATH at a Chromium binary; ${what} is then tested in a real browser.`,
  );
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface PageOptions {
  /** Only this origin is reachable: anything else is refused, so the page must need nothing from elsewhere. */
  base: string;
  viewport?: { width: number; height: number };
  /** Grant the clipboard (copy buttons). */
  clipboard?: boolean;
  /** 4xx statuses the page meets on purpose (Chromium logs every 4xx fetch as a console error). */
  expectedStatuses?: readonly number[];
  /** A failed request the page causes on purpose (an event stream closed when it leaves). */
  expectedFailure?: (req: Request) => boolean;
}

/** A fresh browser profile; `problems` collects page errors, console errors and failed requests. */
export async function newPage(browser: Browser, opts: PageOptions): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: opts.viewport ?? { width: 1100, height: 900 }, locale: 'en-AU', timezoneId: 'Australia/Sydney' });
  if (opts.clipboard) await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: opts.base });
  const page = await context.newPage();
  const problems: string[] = [];
  const expected = (opts.expectedStatuses ?? []).map((s) => `status of ${s}`);
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    if (/Failed to load resource/.test(msg.text()) && expected.some((e) => msg.text().includes(e))) return;
    problems.push(`console error: ${msg.text()}`);
  });
  await context.route(/.*/, (route) => (route.request().url().startsWith(opts.base) ? route.continue() : route.abort('internetdisconnected')));
  page.on('requestfailed', (req) => {
    if (opts.expectedFailure?.(req)) return;
    problems.push(`request failed: ${req.url()} (${req.failure()?.errorText})`);
  });
  return { context, page, problems };
}
