import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../gateway/app.js';
import { mcpHttp } from '../../mcp/http.js';
import type { Runtime } from '../../domain/deployed.js';
import { TestClock } from '../helpers/clock.js';
import { TestClient, freshOrg, testRuntime } from '../helpers/harness.js';
import { freePort, payRuns, type DraftRun } from '../helpers/inbox.js';
import { accessibilityViolations } from '../helpers/axe.js';
import { HAVE_CHROMIUM, launchChromium, newPage, warnIfNoChromium } from '../helpers/browser.js';

/*
 * The approval inbox end to end in real headless Chromium (Debian's chromium, driven by playwright-core): a real
 * gateway on a loopback port, agents calling it over MCP and HTTP, a human clicking in the page.
 * Screenshots go to tests/browser/artifacts/ (gitignored); INBOX_README_SCREENSHOT=1 also refreshes the
 * copy in docs/inbox.md at docs/img/approval-inbox.png.
 */

warnIfNoChromium('tests/browser/inbox.test.ts', 'the approval inbox');

const HERE = dirname(fileURLToPath(import.meta.url));
const ARTIFACTS = join(HERE, 'artifacts');
const README_SHOT = join(HERE, '..', '..', 'docs', 'img', 'approval-inbox.png');

let runtime: Runtime;
let app: FastifyInstance;
let base: string;
let browser: Browser;
let admin: TestClient;
let agentKey: string;
let approverKey: string;
let approverId: string;
let nextRun: () => Promise<DraftRun>;

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  // Bind a known port so PUBLIC_URL (the links in hold messages) is this very server.
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  runtime = await testRuntime({ clock: new TestClock('2026-11-20'), config: { publicUrl: base } });
  app = await buildApp({ runtime, logger: false, rateLimitPerMinute: 0 });
  await app.register(mcpHttp, { pipeline: runtime.pipeline });
  await app.listen({ port, host: '127.0.0.1' });
  const org = await freshOrg(runtime, 'acme');
  admin = new TestClient(app, org.adminKey);
  agentKey = (await admin.mint({ tier: 'agent' }, 'payroll agent')).apiKey;
  const approver = await admin.mint({ tier: 'approver' }, 'Dana Approver');
  approverKey = approver.apiKey;
  approverId = approver.principal.id;
  nextRun = payRuns(admin, (await admin.mint({ tier: 'agent' }, 'hr agent')).apiKey);
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await runtime?.close();
});

/** A fresh profile: the 401 of "am I signed in?" and a refused sign-in are expected, and so is the event stream the page closes when it signs out or leaves. */
const open = () =>
  newPage(browser, {
    base,
    expectedStatuses: [401, 403],
    expectedFailure: (req) => req.url() === `${base}/approvals/api/stream` && req.failure()?.errorText === 'net::ERR_ABORTED',
  });

async function signIn(page: Page, key: string) {
  await page.getByLabel('Human API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function mcpAgent(): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${agentKey}`, 'x-mcp-toolsets': 'payroll' } },
  });
  const client = new Client({ name: 'browser-test-agent', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const structured = (r: unknown): any => {
  const res = r as { isError?: boolean; structuredContent?: unknown; content?: unknown };
  if (res.isError) throw new Error(`tool error: ${JSON.stringify(res.content)}`);
  return res.structuredContent;
};

/** The agent's own HTTP calls to /api/v1 (a real socket, as an HTTP client would). */
async function agentCall(method: string, params: unknown, idem?: string) {
  const res = await fetch(`${base}/api/v1/${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json', ...(idem ? { 'x-idempotency-key': idem } : {}) },
    body: JSON.stringify({ params }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const money = (cents: number) => `$${(cents / 100).toLocaleString('en-AU', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

describe.skipIf(!HAVE_CHROMIUM)('approval inbox in headless Chromium', () => {
  it('an agent key cannot sign in: a clear refusal, no session cookie, the key in no URL', async () => {
    const { context, page, problems } = await open();
    await page.goto(`${base}/approvals`);
    await expect.poll(() => page.title()).toBe('Sign in · Approval inbox');
    await signIn(page, agentKey);
    const alert = page.locator('#signin-error');
    await expect
      .poll(() => alert.textContent())
      .toMatch(/^This is an agent key \(payroll agent, agt_[0-9a-z]+, tier agent\)\. The approval inbox is for humans/);
    expect(await page.getByLabel('Human API key').getAttribute('aria-invalid')).toBe('true');
    expect((await context.cookies()).map((c) => c.name)).not.toContain('wops_inbox');
    expect(page.url()).toBe(`${base}/approvals`);
    expect(await page.evaluate('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })')).toBe('{}{}');
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'signin-refused.png'), fullPage: true });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('an MCP agent hold appears without a reload; the human opens it, checks the payload, approves; the retry with the proof runs', async () => {
    // Already waiting before the human arrives: a second-step payment reminder, held and filed over HTTP.
    const inv = (await admin.ok('books.invoiceDraft', { payeeName: 'Harbour Cafe', description: 'Catering, October', totalCents: 182_600, dueDays: 0 }))
      .invoice;
    await admin.ok('books.invoiceSend', { id: inv.id });
    await admin.ok('books.invoiceChaseStep', { id: inv.id, step: 1 });
    const chase = await agentCall('books.invoiceChaseStep', { id: inv.id, step: 2 }, `chase-${inv.id}`);
    expect(chase.body.result.status, JSON.stringify(chase.body)).toBe('approval_required');
    await agentCall('approval.request', {
      actionClass: chase.body.result.approval.actionClass,
      payloadHash: chase.body.result.approval.payloadHash,
      subject: chase.body.result.approval.subject,
    });

    const { context, page, problems } = await open();
    await page.goto(`${base}/approvals`);
    await signIn(page, approverKey);
    await page.getByRole('heading', { level: 1, name: 'Pending approvals' }).waitFor();
    const cookie = (await context.cookies()).find((c) => c.name === 'wops_inbox');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/approvals' });
    expect(cookie!.value).not.toContain(approverKey);
    await page.locator('li.card').first().waitFor();
    expect(await page.locator('li.card').count()).toBe(1);
    await page.evaluate(() => ((globalThis as any).__notReloaded = true));

    // The agent, over MCP: the pay run is held, the approval filed, and the hold names this inbox's page for it.
    const run = await nextRun();
    const agent = await mcpAgent();
    const hold = structured(await agent.callTool({ name: 'books_payrollSign', arguments: { runId: run.id } }));
    expect(hold).toMatchObject({ status: 'approval_required', approvalStatus: 'pending' });
    expect(hold.url).toBe(`${base}/approvals/${hold.approvalId}`);

    const card = page.locator(`li.card[data-approval-id="${hold.approvalId}"]`);
    await card.waitFor({ timeout: 10_000 });
    expect(await page.evaluate(() => (globalThis as any).__notReloaded)).toBe(true);
    const cardText = (await card.innerText()).replace(/\s+/g, ' ');
    expect(cardText).toContain('Sign a pay run');
    expect(cardText).toContain('New');
    expect(cardText).toContain(`Net pay ${money(run.netCents)}`);
    expect(cardText).toMatch(/Employees 1/);
    expect(cardText).toMatch(/Pay date 2026-10-15/);
    expect(cardText).toMatch(/Requested by payroll agent \(agt_[0-9a-z]+\) on \d{1,2} \w{3} 2026/);
    expect(cardText).toMatch(/ · (23 h 5\d|24 h 0) min left$/); // the hold's 24 hours, counting down
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/^New approval waiting: Sign a pay run\. Pay run 1–14 Oct 2026/);
    expect(await page.getByRole('link', { name: /^Pending \(2\)$/ }).count()).toBe(1);
    const reminder = (await page.locator('li.card').nth(1).innerText()).replace(/\s+/g, ' ');
    expect(reminder).toContain('Send a payment reminder');
    expect(reminder).toContain(`Amount due ${money(182_600)}`);
    expect(reminder).toContain('To Harbour Cafe');
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'inbox.png'), fullPage: true });
    if (process.env.INBOX_README_SCREENSHOT === '1') await page.screenshot({ path: README_SHOT });

    // Keyboard: focus the card's link and press Enter.
    await card.getByRole('link', { name: 'Sign a pay run' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${base}/approvals/${hold.approvalId}`);
    await page.getByRole('heading', { level: 1, name: 'Sign a pay run' }).waitFor();
    expect(await page.evaluate('document.activeElement?.tagName')).toBe('H1');
    expect(await page.locator('pre.json').first().innerText()).toBe(JSON.stringify({ runId: run.id }, null, 2));
    expect(await page.locator('#payload-hash').innerText()).toBe(hold.approval.payloadHash);
    await expect
      .poll(() => page.locator('#hash-check').innerText())
      .toMatch(/Checked in this browser: SHA-256 of the canonical JSON below equals the payload hash/);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'approval.png'), fullPage: true });

    const wait = agent.callTool({ name: 'approval_wait', arguments: { approvalId: hold.approvalId, timeoutMs: 30_000 } });
    await page.getByLabel('Note (optional)').fill('Checked against the timesheets.');
    await page.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => page.locator('.outcome').textContent()).toMatch(/^Approved\. The agent that asked can now retry the act/);
    expect(await page.locator('.title-row .badge').innerText()).toBe('Approved');
    expect((await page.locator('main').innerText()).replace(/\s+/g, ' ')).toMatch(
      /Approved by Dana Approver \(usr_[0-9a-z]+\) on .*: “Checked against the timesheets\.” · not used yet/,
    );
    await page.screenshot({ path: join(ARTIFACTS, 'approval-approved.png'), fullPage: true });

    // The agent's wait answers, and its retry with the proof runs the act.
    expect(structured(await wait)).toMatchObject({ status: 'approved', decidedBy: approverId, note: 'Checked against the timesheets.', timedOut: false });
    const done = structured(await agent.callTool({ name: 'books_payrollSign', arguments: { runId: run.id, approvalId: hold.approvalId } }));
    expect(done).toMatchObject({ payRun: { id: run.id, status: 'POSTED' }, approvalId: hold.approvalId, changed: true });
    await agent.close();
    const events = (await admin.get('events', { cursor: 0, limit: 500 })).body.events as any[];
    const kinds = events.filter((e) => e.entity_id === run.id || e.payload?.subjectId === run.id).map((e) => [e.kind, e.actor]);
    expect(kinds.map(([k]) => k)).toEqual([
      'books.payroll.draft',
      'books.signature.hold',
      'approval.request.create',
      'approval.request.approve',
      'books.payroll.sign',
    ]);
    expect(kinds[3][1]).toBe(approverId); // one event for the click, by the human

    // Back in the list (the browser's Back button), the decided one has left Pending.
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'Pending approvals' }).waitFor();
    await expect.poll(() => page.locator(`li.card[data-approval-id="${hold.approvalId}"]`).count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('the link an HTTP hold gives opens that approval after sign-in; a rejection refuses the agent’s retry', async () => {
    const run = await nextRun();
    const held = await agentCall('books.payrollSign', { runId: run.id }, `sign-${run.id}`);
    expect(held.body.result.status).toBe('approval_required');
    expect(held.body.result.message).toContain(`${base}/approvals`);
    const filed = await agentCall('approval.request', {
      actionClass: held.body.result.approval.actionClass,
      payloadHash: held.body.result.approval.payloadHash,
      subject: held.body.result.approval.subject,
    });
    const { approvalId, url } = filed.body.result;
    expect(url).toBe(`${base}/approvals/${approvalId}`);

    const { context, page, problems } = await open();
    await page.goto(url);
    await expect.poll(() => page.locator('main').innerText()).toContain(`Sign in to open approval ${approvalId}.`);
    await signIn(page, approverKey);
    await page.getByRole('heading', { level: 1, name: 'Sign a pay run' }).waitFor();
    expect(page.url()).toBe(url);
    expect(await page.locator('main').innerText()).toContain(approvalId);

    const wait = fetch(`${base}/api/v1/approval.wait?approvalId=${approvalId}&timeoutMs=30000`, { headers: { authorization: `Bearer ${agentKey}` } }).then(
      (r) => r.json() as Promise<any>,
    );
    await page.getByLabel('Note (optional)').fill('Wrong period: Jane was on leave.');
    await page.getByRole('button', { name: 'Reject' }).click();
    await expect.poll(() => page.locator('.outcome').textContent()).toBe('Rejected. The act cannot run on this approval.');
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);

    expect(await wait).toMatchObject({ status: 'rejected', decidedBy: approverId, note: 'Wrong period: Jane was on leave.', timedOut: false });
    const retry = await agentCall('books.payrollSign', { runId: run.id, approvalId }, `retry-${run.id}`);
    expect(retry.status).toBe(423);
    expect(retry.body.error).toMatchObject({
      code: 'GOVERNANCE_NOT_READY',
      message: `approval ${approvalId} was rejected by ${approverId}; the act cannot run on it`,
    });
    expect(
      (await admin.ok('books.reports', { report: 'payrollSummary', from: '2026-10-01', to: '2026-12-31' })).runs.find((r: any) => r.id === run.id),
    ).toBeUndefined();

    // The Decided tab lists it with the note.
    await page.getByRole('link', { name: 'Decided' }).click();
    await page.getByRole('heading', { level: 1, name: 'Decided approvals' }).waitFor();
    const card = page.locator(`li.card[data-approval-id="${approvalId}"]`);
    await card.waitFor();
    expect((await card.innerText()).replace(/\s+/g, ' ')).toMatch(/Rejected by Dana Approver \(usr_[0-9a-z]+\) on .*: “Wrong period: Jane was on leave\.”/);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'decided.png'), fullPage: true });

    // Sign out: back to the sign-in form, and the session is gone on the server too.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Human API key').waitFor();
    const status = await page.evaluate(() => fetch('/approvals/api/session').then((r) => r.status));
    expect(status).toBe(401);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('a held payload that does not hash to its payload hash: the page says so (checked in the browser) and Approve is disabled', async () => {
    const run = await nextRun();
    const held = await agentCall('books.payrollSign', { runId: run.id }, `sign-${run.id}`);
    const { payloadHash } = held.body.result.approval;
    const filed = await agentCall('approval.request', {
      actionClass: held.body.result.approval.actionClass,
      payloadHash,
      subject: held.body.result.approval.subject,
    });
    // An approval keeps its own copy of the held call and the database refuses to change it: a damaged record can
    // only arrive as a row written around the server, like this one.
    const { approvalId } = filed.body.result;
    const damaged = `${approvalId}x`;
    await runtime.db.query(
      `INSERT INTO approvals (org_id, approval_id, action_class, payload_hash, subject_kind, subject_id, summary, status, requested_by, expires_at, held_method, held_params, held_at)
       SELECT org_id, $2, action_class, payload_hash, subject_kind, subject_id, summary, status, requested_by, expires_at, held_method, $3::jsonb, held_at
         FROM approvals WHERE approval_id = $1`,
      [approvalId, damaged, JSON.stringify({ runId: 'pay_someotherrun0000' })],
    );

    const { context, page, problems } = await open();
    await page.goto(filed.body.result.url.replace(approvalId, damaged));
    await signIn(page, approverKey);
    await page.getByRole('heading', { level: 1, name: 'Sign a pay run' }).waitFor();
    await expect
      .poll(() => page.locator('#hash-check').innerText())
      .toMatch(/^The payload above does not hash to this payload hash \(it hashes to [0-9a-f]{64}\)\. Do not approve it\.$/);
    expect(await page.getByRole('button', { name: 'Approve' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Reject' }).isDisabled()).toBe(false);
    expect(problems).toEqual([]);
    await context.close();
  });
});
