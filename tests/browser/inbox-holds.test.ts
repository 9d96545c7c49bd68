import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../gateway/app.js';
import { signaturePayloadHash } from '../../domain/approval/signature.js';
import type { Runtime } from '../../domain/deployed.js';
import { TestClient, freshOrg, testRuntime } from '../helpers/harness.js';
import { freePort } from '../helpers/inbox.js';
import { accessibilityViolations } from '../helpers/axe.js';
import { HAVE_CHROMIUM, launchChromium, newPage, warnIfNoChromium } from '../helpers/browser.js';

/*
 * A release hold in real headless Chromium (as tests/browser/inbox.test.ts): an agent's board.deleteWorkstream is
 * held and its approval filed by the server; the human opens it, amends moveTasksTo in the page (which shows the
 * params the approve would run and their hash, computed in the browser), approves, and the page shows what ran.
 * A human who is not the owner is told who decides.
 */

warnIfNoChromium('tests/browser/inbox-holds.test.ts', 'the inbox’s release holds');

let runtime: Runtime;
let app: FastifyInstance;
let base: string;
let browser: Browser;
let admin: TestClient;
let agentKey: string;
let approver: { apiKey: string; principal: { id: string } };
let owner: { apiKey: string; principal: { id: string } };

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  runtime = await testRuntime({ config: { publicUrl: base } });
  app = await buildApp({ runtime, logger: false, rateLimitPerMinute: 0 });
  await app.listen({ port, host: '127.0.0.1' });
  const org = await freshOrg(runtime, 'holds');
  admin = new TestClient(app, org.adminKey);
  agentKey = (await admin.mint({ tier: 'agent' }, 'board agent')).apiKey;
  approver = await admin.mint({ tier: 'approver' }, 'Dana Approver');
  owner = await admin.mint({ tier: 'approver' }, 'Olive Owner');
  await admin.ok('governance.set_decision_rights', { rights: [{ area: 'board', decidedBy: 'humans' }] });
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
    expectedStatuses: [401, 403],
    expectedFailure: (req) => req.url().endsWith('/approvals/api/stream'),
  });
  await page.goto(url);
  await page.getByLabel('Human API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  return { page, problems };
}

const workstreamExists = async (id: string) => (await runtime.db.query('SELECT 1 FROM board_workstreams WHERE workstream_id = $1', [id])).length > 0;

describe.skipIf(!HAVE_CHROMIUM)('release holds in the inbox, in headless Chromium', () => {
  it('the human amends moveTasksTo, sees the params and hash the approve will run, approves, and sees what ran', async () => {
    const ws = await admin.ok('board.createWorkstream', { name: 'Old close' });
    const asked = await admin.ok('board.createWorkstream', { name: 'Asked' });
    const chosen = await admin.ok('board.createWorkstream', { name: 'Chosen' });
    await admin.ok('board.createTask', { title: 'carry over', workstreamId: ws.id });
    const held = await admin.ok('board.deleteWorkstream', { workstreamId: ws.id, moveTasksTo: asked.id }, { key: agentKey });
    const approvalId = held.approval.approvalId;

    const { page, problems } = await openSignedIn(`${base}/approvals/${approvalId}`, approver.apiKey);
    await expect.poll(() => page.locator('main h1').innerText()).toBe('Delete a workstream');
    const main = () =>
      page
        .locator('main')
        .innerText()
        .then((t) => t.replace(/\s+/g, ' '));
    expect(await main()).toContain('When approved the act runs in the decision');
    expect(await main()).toContain('Items move to Asked');
    await expect.poll(() => page.locator('#hash-check').innerText()).toMatch(/Checked in this browser/);
    expect(await page.getByRole('button', { name: 'Approve and run' }).count()).toBe(1);

    const field = page.getByLabel('moveTasksTo');
    expect(await field.inputValue()).toBe(asked.id);
    await field.fill(chosen.id);
    const final = { workstreamId: ws.id, moveTasksTo: chosen.id };
    await expect.poll(() => page.locator('#amended-hash').innerText()).toBe(signaturePayloadHash('board.delete_workstream', ws.id, final));
    expect(await main()).toContain('You changed moveTasksTo');
    expect(await accessibilityViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Approve and run' }).click();
    await expect.poll(() => page.locator('.outcome').textContent()).toBe('Approved and run: the act ran in this decision.');
    expect(await page.locator('#released-hash').innerText()).toBe(signaturePayloadHash('board.delete_workstream', ws.id, final));
    expect(await main()).toContain('Approving ran board.deleteWorkstream in the decision, with moveTasksTo amended');
    expect(await workstreamExists(ws.id)).toBe(false);
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('a human who is not the owner is told who decides, and gets no decision buttons', async () => {
    const ws = await admin.ok('board.createWorkstream', { name: 'Owned' });
    await admin.ok('board.assign', { workstreamId: ws.id, owner: owner.principal.id });
    const held = await admin.ok('board.deleteWorkstream', { workstreamId: ws.id }, { key: agentKey });
    const { page, problems } = await openSignedIn(`${base}/approvals/${held.approval.approvalId}`, approver.apiKey);
    await expect.poll(() => page.locator('main h1').innerText()).toBe('Delete a workstream');
    await expect.poll(() => page.locator('main').innerText()).toContain(`Only Olive Owner (${owner.principal.id}) may decide this approval.`);
    expect(await page.getByRole('button', { name: /Approve/ }).count()).toBe(0);
    expect(problems).toEqual([]);
  });
});
