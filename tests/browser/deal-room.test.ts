import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../gateway/app.js';
import type { Runtime } from '../../domain/deployed.js';
import { TestClient, freshOrg, testRuntime } from '../helpers/harness.js';
import { freePort } from '../helpers/ports.js';
import { accessibilityViolations } from '../helpers/axe.js';
import { HAVE_CHROMIUM, launchChromium, newPage, warnIfNoChromium } from '../helpers/browser.js';
import { TestClock } from '../helpers/clock.js';
import { ok } from '../helpers/calls.js';
import { ownerOf } from '../helpers/people.js';
import type { CrmOrg } from '../domain/crm/kit.js';
import { mint, NOTE, share, showableDeal, terms } from '../domain/crm/rooms-kit.js';

/*
 * The deal room end to end in real headless Chromium (design scenario 2, docs/families/crm.md): a buyer opens the
 * link, sees the deal's name, the offered net price and the one shared file (and downloads it), never the
 * probability, the internal note, the other linked file or terms held for a signature; a revoke makes the page a
 * 404; eight days on an unrevoked 7-day link is the same 404; the token is no key for /api/v1 (401). Screenshots
 * go to tests/browser/artifacts/ (gitignored).
 */

warnIfNoChromium('tests/browser/deal-room.test.ts', 'the deal room');

const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), 'artifacts');

let runtime: Runtime;
let app: FastifyInstance;
let base: string;
let browser: Browser;
let o: CrmOrg;
const clock = new TestClock('2026-07-01');

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  runtime = await testRuntime({ config: { publicUrl: base }, clock });
  app = await buildApp({ runtime, logger: false, rateLimitPerMinute: 0 });
  await app.listen({ port, host: '127.0.0.1' });
  const org = await freshOrg(runtime, 'room');
  const client = new TestClient(app, org.adminKey);
  const s = { runtime, app, org, client, close: async () => {} };
  // Only the server, its clock and the owner are used by the room fixtures.
  o = { s, clock, owner: await ownerOf(s) } as unknown as CrmOrg;
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await runtime?.close();
});

// Expected 4xx: the dead link's 404.
const open = () => newPage(browser, { base, viewport: { width: 1000, height: 800 }, expectedStatuses: [404] });
const h1 = (page: import('playwright-core').Page) => page.getByRole('heading', { level: 1 }).textContent();

describe.skipIf(!HAVE_CHROMIUM)('the deal room in headless Chromium', () => {
  it('scenario 2: net price and one file, never probability, notes or held terms; revoke -> 404; +8 days -> the same 404; 401 on /api/v1', async () => {
    const x = await showableDeal(o);
    const room = await share(o, x.deal.id, { show: { offer: true, fileIds: [x.file.id] }, allowDownload: true, expiresInDays: 30 });
    const g = await mint(o, room.id, { name: 'Bea Buyer', capabilities: ['download'] });
    expect(g.url).toBe(`${base}/room#t=${g.token}`);

    const { context, page, problems } = await open();
    await page.goto(g.url);
    await expect.poll(() => h1(page)).toBe(x.deal.name);
    // The token leaves the address bar at once.
    expect(page.url()).toBe(`${base}/room`);
    const main = () => page.locator('main').innerText();
    await expect.poll(main).toContain('$9,000.00');
    const text = await main();
    expect(text).toContain(x.file.name);
    expect(await page.locator('#files ~ ul > li').count()).toBe(1);
    for (const hidden of [NOTE, x.other.name, '75', 'negotiation', 'robabilit', '12,345.67']) expect(text).not.toContain(hidden);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'deal-room.png'), fullPage: true });

    // The shared file downloads through the Guest header (never a URL with the token).
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: x.file.name }).click()]);
    expect(download.suggestedFilename()).toBe(x.file.name);
    expect(readFileSync(await download.path(), 'utf8')).toBe('the proposal bytes');

    // Terms beyond policy replace the offer and wait for a signature (as the desk leaves them): the buyer sees none.
    await runtime.db.query(`UPDATE crm_terms SET status = 'superseded' WHERE org_id = $1 AND terms_id = $2`, [o.s.org.orgId, x.offerId]);
    await terms(o.s, x.deal.id, { version: 2, status: 'held', listCents: 1_000_000, discountBps: 2500, netCents: 750_000 });
    await runtime.db.query('UPDATE crm_deals SET offer_terms_id = NULL WHERE org_id = $1 AND deal_id = $2', [o.s.org.orgId, x.deal.id]);
    await page.goto('about:blank');
    await page.goto(g.url);
    await expect.poll(() => h1(page)).toBe(x.deal.name);
    expect(await main()).not.toContain('7,500');
    expect(await page.getByRole('heading', { name: 'Offer' }).count()).toBe(0);

    // The token is no API key.
    const api = await fetch(`${base}/api/v1/crm.getDeal`, {
      method: 'POST',
      headers: { authorization: `Guest ${g.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ dealId: x.deal.id }),
    });
    expect(api.status).toBe(401);

    // Revoked: the next request is the dead link's page.
    const other = await mint(o, room.id);
    await ok(o.s.client, 'crm.revokeDealShare', { guestTokenId: g.guestToken.id });
    await page.goto('about:blank');
    await page.goto(g.url);
    await expect.poll(() => h1(page)).toBe('This room link is not valid');
    expect(await main()).toMatch(/Ask whoever shared the room for a new link/);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'deal-room-dead.png'), fullPage: true });
    const revokedBody = await (await fetch(`${base}/room/api/view`, { headers: { authorization: `Guest ${g.token}` } })).text();

    // Eight days on, an unrevoked 7-day link: the same 404, word for word.
    clock.set('2026-07-09');
    const expired = await fetch(`${base}/room/api/view`, { headers: { authorization: `Guest ${other.token}` } });
    expect(expired.status).toBe(404);
    expect(await expired.text()).toBe(revokedBody);
    await page.goto('about:blank');
    await page.goto(other.url);
    await expect.poll(() => h1(page)).toBe('This room link is not valid');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('without the #t= fragment the page says to open the whole link', async () => {
    const { context, page, problems } = await open();
    await page.goto(`${base}/room`);
    await expect.poll(() => h1(page)).toBe('Open the link you were sent');
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });
});
