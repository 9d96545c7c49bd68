import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../gateway/app.js';
import type { Runtime } from '../../domain/deployed.js';
import { TestClient, freshOrg, testRuntime } from '../helpers/harness.js';
import { freePort } from '../helpers/inbox.js';
import { accessibilityViolations } from '../helpers/axe.js';
import { HAVE_CHROMIUM, launchChromium, newPage, warnIfNoChromium } from '../helpers/browser.js';

/*
 * "Waiting on you" in the approval inbox, in real headless Chromium (as tests/browser/inbox.test.ts): an escalation
 * assigned to the signed-in human and a decision waiting on their signature are listed with how to act; an
 * escalation raised while the page is open appears without a reload (the inbox's live stream) and is announced;
 * axe finds nothing; the console stays clean.
 */

warnIfNoChromium('tests/browser/inbox-waiting.test.ts', '“Waiting on you” in the approval inbox');

const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), 'artifacts');

let runtime: Runtime;
let app: FastifyInstance;
let base: string;
let browser: Browser;
let admin: TestClient;
let agentKey: string;
let dana: { apiKey: string; principal: { id: string } };

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  // The real clock: escalations and offers (the deps clock) and decisions and approvals (the database's) order alike.
  runtime = await testRuntime({ config: { publicUrl: base } });
  app = await buildApp({ runtime, logger: false, rateLimitPerMinute: 0 });
  await app.listen({ port, host: '127.0.0.1' });
  const org = await freshOrg(runtime, 'waiting');
  admin = new TestClient(app, org.adminKey);
  agentKey = (await admin.mint({ tier: 'agent' }, 'pricing agent')).apiKey;
  // A member: signs in to the inbox (approval.request) and signs decisions (decision.write).
  dana = await admin.mint({ tier: 'member' }, 'Dana Member');
  await admin.ok('governance.set_decision_rights', { rights: [{ area: 'pricing', decidedBy: 'humans', agree: [dana.principal.id] }] });
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await runtime?.close();
});

async function openSignedIn(url: string, key: string): Promise<{ page: Page; problems: string[] }> {
  const { page, problems } = await newPage(browser, {
    base,
    expectedStatuses: [401],
    expectedFailure: (req) => req.url() === `${base}/approvals/api/stream` && req.failure()?.errorText === 'net::ERR_ABORTED',
  });
  await page.goto(url);
  await page.getByLabel('Human API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  return { page, problems };
}

const cards = (page: Page) => page.locator('main li.card[data-waiting-id]');
const text = (page: Page, selector: string) =>
  page
    .locator(selector)
    .innerText()
    .then((t) => t.replace(/\s+/g, ' '));

describe.skipIf(!HAVE_CHROMIUM)('“Waiting on you” in headless Chromium', () => {
  it('shows an escalation assigned to the human and a decision awaiting their signature; a new one arrives live; axe and the console are clean', async () => {
    const escalation = (
      await admin.ok(
        'escalation.create',
        { title: 'Supplier threatens to stop deliveries', reason: 'risk', severity: 'high', to: dana.principal.id },
        { key: agentKey },
      )
    ).escalation;
    const decision = (await admin.ok('decision.propose', { title: 'Raise list prices 4%', area: 'pricing', decision: 'From 1 January.' }, { key: agentKey }))
      .decision;

    const { page, problems } = await openSignedIn(`${base}/approvals`, dana.apiKey);
    const tab = page.getByRole('link', { name: /^Waiting on you/ });
    await expect.poll(() => tab.innerText()).toBe('Waiting on you (2)');
    await tab.click();
    await expect.poll(() => page.title()).toBe('Waiting on you · Approval inbox');
    expect(await tab.getAttribute('aria-current')).toBe('page');
    await expect.poll(() => cards(page).count()).toBe(2);

    const esc = page.locator(`li[data-waiting-id="${escalation.id}"]`);
    expect((await esc.innerText()).replace(/\s+/g, ' ')).toMatch(
      new RegExp(
        `^Escalation Supplier threatens to stop deliveries Severity high · level 1 · reason risk · climbs past you on .+ From pricing agent \\(agt_\\w+\\), waiting since `,
      ),
    );
    expect(await esc.locator('.act').innerText()).toBe(`Act with escalation.resolve {"escalationId":"${escalation.id}"}`);
    const sig = page.locator(`li[data-waiting-id="${decision.id}"]`);
    expect((await sig.innerText()).replace(/\s+/g, ' ')).toContain(
      `Your signature Raise list prices 4% Decision D-${decision.number} · version 1 · area pricing`,
    );
    expect(await sig.locator('.act').innerText()).toBe(`Act with decision.sign {"decisionId":"${decision.id}","version":1}`);
    expect(await text(page, 'ul.counts')).toBe('1 decision to sign 1 escalation assigned to you');
    expect(await accessibilityViolations(page)).toEqual([]);

    // Raised while the page is open: it appears without a reload, marked new and announced.
    const arriving = (await admin.ok('escalation.create', { title: 'Bank feed stopped', reason: 'blocked', to: dana.principal.id }, { key: agentKey }))
      .escalation;
    await expect.poll(() => cards(page).count(), { timeout: 10_000 }).toBe(3);
    const fresh = page.locator(`li[data-waiting-id="${arriving.id}"]`);
    expect(await fresh.locator('.badge-new').innerText()).toBe('New');
    expect(await cards(page).first().getAttribute('data-waiting-id')).toBe(arriving.id); // newest first
    await expect.poll(() => page.locator('.announce').innerText()).toContain('Now waiting on you: Escalation: Bank feed stopped, from pricing agent.');
    await expect.poll(() => tab.innerText()).toBe('Waiting on you (3)');

    // Signed over the API: every signature is in and humans decide pricing, so it now waits on her decision.
    await admin.ok('decision.sign', { decisionId: decision.id, version: 1 }, { key: dana.apiKey });
    await expect.poll(() => sig.locator('.badge-kind').innerText(), { timeout: 10_000 }).toBe('Your decision');
    expect(await sig.locator('.act').innerText()).toBe(`Act with decision.adopt {"decisionId":"${decision.id}","version":1}`);
    // Resolved over the API: it leaves the list.
    await admin.ok('escalation.resolve', { escalationId: escalation.id, outcome: 'directed', resolution: 'Paid the supplier.' }, { key: dana.apiKey });
    await expect.poll(() => cards(page).count(), { timeout: 10_000 }).toBe(2);
    expect(await esc.count()).toBe(0);

    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'waiting-on-you.png'), fullPage: true });
    expect(problems).toEqual([]);
  });
});
