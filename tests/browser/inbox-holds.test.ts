import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../gateway/app.js';
import { signaturePayloadHash } from '../../domain/approval/signature.js';
import type { Runtime } from '../../domain/runtime.js';
import { TestClient, freshOrg, testRuntime } from '../helpers/harness.js';
import { freePort } from '../helpers/inbox.js';

/*
 * A release hold in real headless Chromium (as tests/browser/inbox.test.ts): an agent's board.deleteWorkstream is
 * held and its approval filed by the server; the human opens it, amends moveTasksTo in the page (which shows the
 * params the approve would run and their hash, computed in the browser), approves, and the page shows what ran.
 * A human who is not the owner is told who decides.
 */

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const HAVE_CHROMIUM = existsSync(CHROMIUM);
if (!HAVE_CHROMIUM) console.warn(`tests/browser/inbox-holds.test.ts SKIPPED: no Chromium at ${CHROMIUM} (see tests/browser/inbox.test.ts)`);
const AXE = readFileSync(join(dirname(createRequire(import.meta.url).resolve('axe-core')), 'axe.min.js'), 'utf8');

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
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await runtime?.close();
});

async function openSignedIn(url: string, key: string): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 }, locale: 'en-AU' });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/status of 40[13]/.test(msg.text())) problems.push(`console error: ${msg.text()}`);
  });
  await page.goto(url);
  await page.getByLabel('Human API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  return { page, problems };
}

async function accessibilityViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const result = await page.evaluate(() => {
    const w = globalThis as any;
    return w.axe.run(w.document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
  });
  return result.violations.map((v: any) => `${v.id}: ${v.help} (${v.nodes.map((n: any) => n.target.join(' ')).join(', ')})`);
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
    const main = () => page.locator('main').innerText().then((t) => t.replace(/\s+/g, ' '));
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
