import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAiSettings } from '../../../domain/ai-settings.js';
import { mutate, ok, refused } from '../../helpers/calls.js';
import { TestClock } from '../../helpers/clock.js';
import { newTask } from '../../helpers/tasks.js';
import { rtOrg, type RtOrg } from './kit.js';

/*
 * cost.report and scenario 5: reported, table-priced and unpriced entries reach GET /cost.rollup (byModel by
 * source, byActor); resent externalIds are duplicates; agents' spend exhausts the one monthly budget, so books.ask
 * answers RATE_LIMITED while the report still answers, saying exhausted.
 */

// The gateway's time set mid-month: entries an hour old stay in the month GET /cost.rollup shows by default, whatever the real hour.
const clock = new TestClock('2026-11-16');
const ago = (ms: number) => new Date(clock.now().getTime() - ms).toISOString();
const hourAgo = () => ago(3_600_000);

let o: RtOrg;
beforeAll(async () => {
  o = await rtOrg({ aiNow: () => clock.now() });
});
afterAll(() => o.s.close());

const entry = (externalId: string, extra: Record<string, unknown> = {}) => ({
  provider: 'openai',
  model: 'gpt-4o-mini',
  inputTokens: 1000,
  outputTokens: 500,
  occurredAt: hourAgo(),
  externalId,
  ...extra,
});

describe('scenario 5: reported spend reaches the rollup and the budget', () => {
  it('three entries priced three ways; resent ids are duplicates; the spent budget stops books.ask, the report says exhausted', async () => {
    const taskId = (await newTask(o.s)).id as string;
    const entries = [
      entry('call-1', { costMicroUsd: 4000, taskId }),
      entry('call-2', { model: 'gpt-4o-mini-2024-07-18', cacheReadTokens: 1000 }),
      entry('call-3', { provider: 'anthropic', model: 'claude-x' }),
    ];
    const { result, event } = await mutate(o.s, 'cost.report', { entries }, 'cost.usage.report', { key: o.agent.key });
    // gpt-4o-mini: (1000 + 1000 cached) * 0.15 + 500 * 0.6 = 300 + 300 micro-dollars.
    expect(result).toMatchObject({
      accepted: 3,
      duplicates: 0,
      costMicroUsd: 4600,
      bySource: { reported: 1, table: 1, unpriced: 1 },
      budget: { exhausted: false },
    });
    expect(event.payload).toEqual({ accepted: 3, duplicates: 0, tokens: 5500, costMicroUsd: 4600, models: 3, reported: 1, table: 1, unpriced: 1 });
    const again = await mutate(o.s, 'cost.report', { entries: [entries[0], entry('call-4'), entry('call-4')] }, 'cost.usage.report', { key: o.agent.key });
    expect(again.result).toMatchObject({ accepted: 1, duplicates: 2, costMicroUsd: 450 });
    // Another actor's externalId is its own.
    expect((await ok(o.s, 'cost.report', { entries: [entry('call-1', { costMicroUsd: 100 })] }, o.agent2.key)).accepted).toBe(1);

    const rollup = (await o.s.client.get('cost.rollup')).body;
    expect(rollup.totals).toMatchObject({ asks: 0, reports: 5, costMicroUsd: 5150 });
    expect(rollup.byModel).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ source: 'report', provider: 'openai', model: 'gpt-4o-mini', reports: 3, costMicroUsd: 4550 }),
        expect.objectContaining({ source: 'report', provider: 'openai', model: 'gpt-4o-mini-2024-07-18', reports: 1, costMicroUsd: 600 }),
        expect.objectContaining({ source: 'report', provider: 'anthropic', model: 'claude-x', reports: 1, costMicroUsd: 0 }),
      ]),
    );
    expect(rollup.byActor).toEqual([
      expect.objectContaining({ actor: o.agent.id, reports: 4, costMicroUsd: 5050 }),
      expect.objectContaining({ actor: o.agent2.id, reports: 1, costMicroUsd: 100 }),
    ]);
    expect(rollup.budget.spentThisMonthMicroUsd).toBe(5150);

    await setAiSettings(o.s.runtime.db, o.s.org.slug, { monthlyBudgetMicroUsd: 6000 });
    const spent = await ok(o.s, 'cost.report', { entries: [entry('call-5', { costMicroUsd: 1000 })] }, o.agent.key);
    expect(spent.budget).toMatchObject({ monthlyBudgetMicroUsd: 6000, remainingMicroUsd: 0, exhausted: true });
    await refused(o.s, 'books.ask', { question: 'Who owes us?' }, 'RATE_LIMITED', { message: /monthly AI budget of \$0\.006 is spent/ });
    expect((await ok(o.s, 'cost.report', { entries: [entry('call-6', { costMicroUsd: 1 })] }, o.agent.key)).accepted).toBe(1);
  });
});

describe('cost.report misuse', () => {
  it('201 entries, a future or 36-day-old occurredAt, a negative token count name the field, and nothing is written', async () => {
    const many = Array.from({ length: 201 }, (_, i) => entry(`bulk-${i}`));
    await refused(o.s, 'cost.report', { entries: many }, 'BAD_REQUEST', { key: o.agent.key, message: /^entries: must be at most 200 entries/ });
    await refused(o.s, 'cost.report', { entries: [] }, 'BAD_REQUEST', { key: o.agent.key, message: /^entries: must have at least 1 entry/ });
    const future = ago(-3_600_000);
    await refused(o.s, 'cost.report', { entries: [entry('ok-1'), entry('f-1', { occurredAt: future })] }, 'BAD_REQUEST', {
      key: o.agent.key,
      message: /^entries\.1\.occurredAt: is in the future/,
    });
    const old = ago(36 * 86_400_000);
    await refused(o.s, 'cost.report', { entries: [entry('o-1', { occurredAt: old })] }, 'BAD_REQUEST', {
      key: o.agent.key,
      message: /^entries\.0\.occurredAt: is more than 35 days ago/,
    });
    await refused(o.s, 'cost.report', { entries: [entry('n-1', { inputTokens: -1 })] }, 'BAD_REQUEST', {
      key: o.agent.key,
      message: /^entries\.0\.inputTokens: /,
    });
    await refused(o.s, 'cost.report', { entries: [entry('u-1', { colour: 'red' })] }, 'BAD_REQUEST', { key: o.agent.key, message: /colour/ });
    await refused(o.s, 'cost.report', { entries: [entry('v-1')] }, 'FORBIDDEN_SCOPE', { key: o.viewer.key, message: /^missing scope cost.report/ });
    // A taskId must be a task of this org: unknown or another org's is NOT_FOUND naming the entry.
    const mine = (await newTask(o.s)).id as string;
    const theirs = (await newTask(o.other)).id as string;
    for (const taskId of ['task_nosuch', theirs]) {
      await refused(o.s, 'cost.report', { entries: [entry('t-1', { taskId: mine }), entry('t-2', { taskId })] }, 'NOT_FOUND', {
        key: o.agent.key,
        message: /^entries\.1\.taskId: task \S+ not found in this organisation/,
      });
    }
    const rows = await o.s.runtime.db.query(`SELECT 1 FROM cost_entries WHERE org_id = $1 AND external_id IN ('ok-1', 'bulk-0')`, [o.s.org.orgId]);
    expect(rows).toEqual([]);
  });
});

describe('a 200-entry report', () => {
  it('is one INSERT: every row in one statement, duplicates counted', async () => {
    const many = Array.from({ length: 200 }, (_, i) => entry(`batch-${i}`, { costMicroUsd: 1 }));
    const first = await ok(o.s, 'cost.report', { entries: many }, o.agent2.key);
    expect(first).toMatchObject({ accepted: 200, duplicates: 0, costMicroUsd: 200 });
    const second = await ok(o.s, 'cost.report', { entries: many }, o.agent2.key);
    expect(second).toMatchObject({ accepted: 0, duplicates: 200 });
  });
});
