import type { FastifyInstance } from 'fastify';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../gateway/app.js';
import type { Runtime } from '../../domain/deployed.js';
import { testRuntime } from '../helpers/harness.js';
import { HAVE_CHROMIUM, launchChromium, newPage, warnIfNoChromium } from '../helpers/browser.js';

/*
 * /docs (Swagger UI) in real headless Chromium under its Content-Security-Policy: the operations render, an
 * operation opens, and the browser reports no CSP violation, page error or failed request.
 */

warnIfNoChromium('tests/browser/docs.test.ts', 'the API docs page under its CSP');

let runtime: Runtime;
let app: FastifyInstance;
let base: string;
let browser: Browser;

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  runtime = await testRuntime();
  app = await buildApp({ runtime, logger: false, rateLimitPerMinute: 0 });
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await runtime?.close();
});

describe.skipIf(!HAVE_CHROMIUM)('/docs in headless Chromium', () => {
  it('renders the operations under its policy, with no CSP violation or error', async () => {
    const { context, page, problems } = await newPage(browser, { base });
    const violations: string[] = [];
    await page.exposeFunction('reportViolation', (v: string) => violations.push(v));
    await page.addInitScript({
      content: "document.addEventListener('securitypolicyviolation', (e) => window.reportViolation(e.violatedDirective + ' ' + e.blockedURI));",
    });
    const res = await page.goto(`${base}/docs`);
    expect(res?.headers()['content-security-policy']).toMatch(/script-src 'self'/);
    await expect.poll(() => page.locator('.opblock').count(), { timeout: 30_000 }).toBeGreaterThan(0);
    await page.locator('.topbar select').selectOption('books'); // one family's document at a time
    await expect.poll(() => page.locator('.opblock-summary-path', { hasText: 'books.reports' }).count(), { timeout: 30_000 }).toBe(1);
    const first = page.locator('.opblock-summary').first();
    await first.click();
    await expect.poll(() => page.locator('.opblock.is-open').count()).toBeGreaterThan(0);
    expect(violations).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
