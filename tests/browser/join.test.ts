import { mkdirSync } from 'node:fs';
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

/*
 * The /join page end to end in real headless Chromium (Debian's chromium, driven by playwright-core): a real
 * gateway on a loopback port, an admin inviting over HTTP, the invitee opening the link, accepting, copying the
 * key. Screenshots go to tests/browser/artifacts/ (gitignored).
 */

warnIfNoChromium('tests/browser/join.test.ts', 'the invitation page');

const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), 'artifacts');

let runtime: Runtime;
let app: FastifyInstance;
let base: string;
let browser: Browser;
let admin: TestClient;
let n = 0;

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  // A known port, so PUBLIC_URL (the link in the invitation) is this very server.
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  runtime = await testRuntime({ config: { publicUrl: base } });
  app = await buildApp({ runtime, logger: false, rateLimitPerMinute: 0 });
  await app.listen({ port, host: '127.0.0.1' });
  const org = await freshOrg(runtime, 'acme');
  admin = new TestClient(app, org.adminKey);
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await runtime?.close();
});

// Expected 4xx: an invalid link's 404, a used one's 409.
const open = () => newPage(browser, { base, viewport: { width: 1000, height: 800 }, clipboard: true, expectedStatuses: [404, 409] });

const invite = async (role = 'member') =>
  admin.ok<{ acceptUrl: string; invitation: { id: string }; member: { id: string } }>('invitation.create', {
    email: `new.hire${++n}@example.com`,
    role,
    name: `New Hire ${n}`,
  });

describe.skipIf(!HAVE_CHROMIUM)('the /join page in headless Chromium', () => {
  it('shows the invitation, accepts it, shows the key once with a working copy button; accessible at each step', async () => {
    const r = await invite('approver');
    const { context, page, problems } = await open();
    await page.goto(r.acceptUrl);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toMatch(/^Join Test acme-/);
    // The token leaves the address bar (and so any later Referer or screenshot of it).
    expect(new URL(page.url()).search).toBe('');
    await expect.poll(() => page.locator('main').textContent()).toContain(`invited you (new.hire${n}@example.com)`);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'join-invitation.png'), fullPage: true });

    await page.getByRole('button', { name: 'Accept invitation' }).click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toMatch(/^Welcome to Test acme-/);
    const key = await page.getByLabel('Your API key').inputValue();
    expect(key).toMatch(/^wops_[0-9a-z]{40}$/);
    await page.getByRole('button', { name: 'Copy key' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Copied to the clipboard.');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);
    expect(await page.getByRole('link', { name: 'approval inbox' }).getAttribute('href')).toBe('/approvals');
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'join-key.png'), fullPage: true });
    // The key works: the new member is who it says.
    const who = await (await fetch(`${base}/api/v1/org/whoami`, { headers: { authorization: `Bearer ${key}` } })).json();
    expect(who).toMatchObject({ principal: { id: r.member.id }, tier: 'approver' });

    // The same link again: a clear page saying it was used and what to do.
    await page.goto(r.acceptUrl);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('This invitation was already used');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('expired, withdrawn, invalid and missing links each get a page that says so and what to do', async () => {
    const expired = await invite();
    await runtime.db.query(`UPDATE invitations SET expires_at = now() - interval '1 minute' WHERE invitation_id = $1`, [expired.invitation.id]);
    const revoked = await invite();
    await admin.ok('invitation.revoke', { invitationId: revoked.invitation.id });
    const cases: [string, string, RegExp][] = [
      [expired.acceptUrl, 'This invitation has expired', /to resend it: you will get a new link/],
      [revoked.acceptUrl, 'This invitation was withdrawn', /to invite you again/],
      [`${base}/join?token=org_x.ivt_y.wjt_z`, 'This invitation link is not valid', /use the whole link from the newest invitation mail/],
      [`${base}/join`, 'Open the link from your invitation', /needs the whole link from your invitation mail/],
    ];
    const { context, page, problems } = await open();
    for (const [url, title, what] of cases) {
      await page.goto(url);
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe(title);
      expect(await page.locator('main').textContent()).toMatch(what);
      expect(await accessibilityViolations(page)).toEqual([]);
    }
    expect(problems).toEqual([]);
    await context.close();
  });
});
