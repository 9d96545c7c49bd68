import type { Clock } from '../domain/core/deps.js';
import { METHOD_HANDLERS, READ_HANDLERS } from '../domain/deployed.js';
import { Pipeline } from '../domain/core/pipeline.js';
import type { Runtime } from '../domain/deployed.js';
import { systemCreateOrg, systemMintKey } from '../domain/system.js';
import { findOrgBySlug } from '../domain/people/org/service.js';
import { formatCents } from '../domain/books/money.js';
import { firstUncoveredPayDate, loadedSchedules } from '../domain/books/rates/index.js';
import { DEMO_NAME, demoPayDates, demoStory } from './demo-story.js';
import { demoPeople } from './demo-people.js';
import { demoDirectory } from './demo-directory.js';
import { demoGovernance } from './demo-governance.js';
import { demoEmail } from './demo-email.js';
import { demoCalendar } from './demo-calendar.js';
import { demoCrm } from './demo-crm.js';
import { demoBranding } from './demo-branding.js';
import { demoArtifact } from './demo-artifact.js';
import { demoRuntime } from './demo-runtime.js';
import { demoVault } from './demo-vault.js';
import { demoIntegration } from './demo-integration.js';
import { demoKnowledge } from './demo-knowledge.js';
import { demoMessaging } from './demo-messaging.js';
import { demoFiles } from './demo-files.js';

/*
 * `npm run cli -- demo`: a believable small company to try every books method on. It is made the way a real one
 * would be: every step is an API call through the pipeline (so it is ledgered), signature acts are approved by a
 * human key, bank lines arrive through the statement import. The business clock walks from the start of the last
 * completed quarter to today.
 */

/** A clock the seed moves: each step happens on its own business date, or (live) at the real time. */
class StoryClock implements Clock {
  date = new Date().toISOString().slice(0, 10);
  live = false;
  now(): Date {
    return this.live ? new Date() : new Date(`${this.date}T10:00:00Z`);
  }
}

export interface DemoKeys {
  admin: string;
  agent: string;
  approver: string;
}

/** What the story needs: calls as a principal, signature acts through a human approval, and its dates. */
export class DemoDesk {
  private seq = 0;
  calls = 0;
  constructor(
    readonly runtime: Runtime,
    readonly pipeline: Pipeline,
    readonly clock: StoryClock,
    readonly orgId: string,
    readonly keys: DemoKeys,
  ) {}

  at(date: string): this {
    this.clock.date = date;
    this.clock.live = false;
    return this;
  }

  /** From now on the real time: what the server reads from its clock later (an offer's expiry, an escalation's level) starts now. */
  live(): this {
    this.clock.live = true;
    return this;
  }

  async call<T = any>(method: string, params: Record<string, unknown>, key = this.keys.admin): Promise<T> {
    return this.callOn(this.pipeline, method, params, key);
  }

  /** A call through another pipeline (the same handlers on adjusted deps), counted and keyed as the story's own. */
  async callOn<T = any>(pipeline: Pipeline, method: string, params: Record<string, unknown>, key = this.keys.admin): Promise<T> {
    this.calls++;
    const out = await pipeline.call({ method, params, apiKey: key, idempotencyKey: `demo-${++this.seq}` });
    if (!out.frame.ok) throw new Error(`${method} ${JSON.stringify(params)}: ${out.frame.error.code} ${out.frame.error.message}`);
    return out.frame.result as T;
  }

  /** The bookkeeping agent's member id: the principal of the story's agent key (the people story renames it). */
  async agentId(): Promise<string> {
    return (await this.pipeline.principalFor(this.keys.agent)).id;
  }

  /** The org's members by name (the people demo made them): name -> id. */
  async memberIds(): Promise<Map<string, string>> {
    const { members } = await this.call('member.list', { limit: 500 });
    return new Map(members.map((m: { name: string; id: string }) => [m.name, m.id]));
  }

  /** The agent calls a signature act; if held, it files the approval, the human approver approves, it retries. */
  async signed<T = any>(method: string, params: Record<string, unknown>): Promise<T> {
    const first = await this.call(method, params, this.keys.agent);
    if (first.status !== 'approval_required') return first;
    return this.retryApproved(method, params, first.approval);
  }

  /** PB-B1: billApprove of a flagged bill is refused until a signature backs it; file what the refusal names. */
  async approveBill(billId: string): Promise<any> {
    this.calls++;
    const out = await this.pipeline.call({
      method: 'books.billApprove',
      params: { id: billId },
      apiKey: this.keys.agent,
      idempotencyKey: `demo-${++this.seq}`,
    });
    if (out.frame.ok) return out.frame.result;
    const hash = /payloadHash ([0-9a-f]{64})/.exec(out.frame.error.message)?.[1];
    if (out.frame.error.code !== 'GOVERNANCE_NOT_READY' || !hash) throw new Error(`books.billApprove ${billId}: ${out.frame.error.message}`);
    return this.retryApproved(
      'books.billApprove',
      { id: billId },
      { actionClass: 'books.bill_approve', payloadHash: hash, subject: { kind: 'books.signature', subjectId: billId, summary: 'bill approval' } },
    );
  }

  private async retryApproved(method: string, params: Record<string, unknown>, approval: { actionClass: string; payloadHash: string; subject: unknown }) {
    const filed = await this.call(
      'approval.request',
      { actionClass: approval.actionClass, payloadHash: approval.payloadHash, subject: approval.subject },
      this.keys.agent,
    );
    await this.call(
      'approval.resolve',
      { approvalId: filed.approvalId, decision: 'approve', note: 'Checked against the paperwork (demo).' },
      this.keys.approver,
    );
    return this.call(method, { ...params, approvalId: filed.approvalId }, this.keys.agent);
  }
}

export interface DemoResult {
  orgId: string;
  slug: string;
  keys: DemoKeys;
  calls: number;
  summary: string[];
}

/**
 * The day the story ends: today, when the loaded PAYG schedules cover the pay runs it drafts up to today; else the
 * last day they cover, said in a notice (the story's payroll must never be computed with another year's table).
 * No covering day at all: refused before anything is created.
 */
export async function storyEnd(runtime: Runtime, today: string): Promise<{ end: string; notice?: string }> {
  const uncovered = await firstUncoveredPayDate(runtime.db, demoPayDates(today));
  if (!uncovered) return { end: today };
  const lastCovered = (await loadedSchedules(runtime.db))
    .map((s) => s.to)
    .filter((to) => to < today)
    .sort()
    .at(-1);
  if (lastCovered && !(await firstUncoveredPayDate(runtime.db, demoPayDates(lastCovered)))) {
    return {
      end: lastCovered,
      notice: `${uncovered.message.replace(/^payDate: /, '')}. The demo company trades up to ${lastCovered}, the last day the loaded PAYG schedules cover; load that year's schedule and seed again to trade up to today`,
    };
  }
  throw new Error(
    `the demo company's payroll needs a PAYG schedule for every pay date from ${demoPayDates(today)[0]} to ${demoPayDates(today).at(-1)}; ` +
      `${uncovered.message}. Nothing was seeded`,
  );
}

/** Create the demo org and tell its story. Refuses an existing slug rather than adding to a real org's books. */
export async function seedDemo(runtime: Runtime, opts: { slug: string; progress?: (line: string) => void }): Promise<DemoResult> {
  const progress = opts.progress ?? (() => {});
  if (await findOrgBySlug(runtime.db, opts.slug)) {
    throw new Error(`org ${opts.slug} already exists; pass --org <another-slug> for a fresh demo company`);
  }
  // The story runs payroll every month: it ends where the loaded PAYG schedules do, never half-way.
  const { end, notice } = await storyEnd(runtime, new Date().toISOString().slice(0, 10));
  if (notice) progress(notice);
  const created = await systemCreateOrg(runtime.db, { slug: opts.slug, name: DEMO_NAME });
  const agent = await systemMintKey(runtime.db, opts.slug, { name: 'Demo bookkeeping agent', tier: 'agent' });
  const approver = await systemMintKey(runtime.db, opts.slug, { name: 'Demo finance lead', tier: 'approver' });
  const keys = { admin: created.admin.apiKey, agent: agent.apiKey, approver: approver.apiKey };
  const clock = new StoryClock();
  // The runtime's own pipeline runs on the system clock; the story gets one on its moving clock.
  const pipeline = new Pipeline({ ...runtime.deps, clock }, METHOD_HANDLERS, READ_HANDLERS);
  const desk = new DemoDesk(runtime, pipeline, clock, created.orgId, keys);
  const summary = await demoStory(desk, end, progress);
  if (notice) summary.unshift(`Note: ${notice}.`);
  const tb = await desk.at(end).call('books.reports', { report: 'trialBalance' });
  const bank = tb.lines.find((l: { account: string }) => l.account === '090');
  summary.push(
    `Bank balance ${formatCents((bank?.debitCents ?? 0) - (bank?.creditCents ?? 0))}; the trial balance agrees: debits ${formatCents(tb.totalDebitCents)} = credits ${formatCents(tb.totalCreditCents)}`,
  );
  summary.push(...(await demoPeople(desk, end, progress)));
  summary.push(...(await demoDirectory(desk, progress)));
  summary.push(...(await demoGovernance(desk, progress)));
  summary.push(...(await demoMessaging(desk, progress)));
  summary.push(...(await demoEmail(desk, progress)));
  summary.push(...(await demoKnowledge(desk, progress)));
  const week = await demoCalendar(desk, progress);
  summary.push(...week.summary);
  summary.push(...(await demoCrm(desk, week, progress)));
  summary.push(...(await demoBranding(desk, progress)));
  summary.push(...(await demoArtifact(desk, progress)));
  summary.push(...(await demoRuntime(desk, progress)));
  summary.push(...(await demoVault(desk, progress)));
  summary.push(...(await demoIntegration(desk, progress)));
  summary.push(...(await demoFiles(desk, end, progress)));
  return { orgId: created.orgId, slug: opts.slug, keys, calls: desk.calls, summary };
}
