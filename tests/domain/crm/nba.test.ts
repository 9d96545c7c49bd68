import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutate, noop, read, refused } from '../../helpers/calls.js';
import { person, type Person } from '../../helpers/people.js';
import type { Queryable } from '../../../db/types.js';
import { runNba } from '../../../domain/crm/playbooks/nba.js';
import { account, crmOrg, deal, type CrmOrg } from './kit.js';
import { playbook, task, v } from './playbooks-kit.js';

/*
 * Next best action (runNextBestAction) and follow-through (taskFollowThrough), and their misuse. Each describe has an
 * org of its own: enabled playbooks are org-wide, and these tests move the clock.
 */

describe('crm.runNextBestAction', () => {
  let n: CrmOrg;
  let own: Person;
  let a: any;
  let b: any;
  let p1: any;
  const rules = [
    task('stalled-call', v('risk.stalled'), 'Call the champion', 100, 2),
    {
      id: 'qualify',
      priority: 600,
      when: { '==': [v('deal.stage'), 'lead'] },
      then: { action: 'suggest', text: 'Qualify it', call: { method: 'crm.moveStage', params: { stage: 'qualified' } } },
    },
    {
      id: 'contract',
      priority: 700,
      when: { '>': [v('deal.amountCents'), 0] },
      then: { action: 'holdNextStep', kind: 'send_contract', title: 'Send the MSA', reason: 'Big enough' },
    },
    { id: 'big', priority: 800, when: { '>': [v('deal.amountCents'), 500_000] }, then: { action: 'flagRisk', flag: 'bigDeal', text: 'A big one' } },
  ];
  beforeAll(async () => {
    n = await crmOrg('2026-07-01');
    own = await person(n.s, 'Owner', { tier: 'member' });
    const acct = (await account(n)).id;
    a = await deal(n, acct, { stage: 'lead', ownerId: own.id });
    b = await deal(n, acct, { stage: 'qualified', ownerId: own.id, closeDate: '2026-07-10' });
    p1 = await playbook(n, rules, { enable: true });
    await playbook(n, [task('always', true)]); // disabled: never runs
    n.clock.set('2026-07-17');
  });
  afterAll(() => n.s.close());

  const order = (x: any, y: any) =>
    x.priority - y.priority || cmp(x.playbookId ?? '', y.playbookId ?? '') || cmp(x.ruleId, y.ruleId) || cmp(x.dealId, y.dealId);
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  const strip = (recs: any[]) => recs.map(({ id: _id, suggestedCall, ...r }) => ({ ...r, call: suggestedCall.method }));

  it('ranks the risk flags and the enabled playbooks’ rules; records them with ready-to-run calls; acts on nothing', async () => {
    const { result, event } = await mutate(n.s, 'crm.runNextBestAction', { ownerId: own.id }, 'crm.nba.run', { entityId: (r) => r.run.id });
    const recs = result.recommendations;
    expect(result.run).toMatchObject({ dealId: null, ownerId: own.id, asOf: '2026-07-17T09:00:00.000Z', deals: 2, count: recs.length });
    expect(event.payload).toEqual({ runId: result.run.id, dealId: null, ownerId: own.id, deals: 2, count: recs.length, playbookIds: [p1.id] });
    expect(recs.map((r: any) => r.rank)).toEqual(recs.map((_: any, i: number) => i + 1));
    expect([...recs].sort(order)).toEqual(recs);
    const got = (deal: any) => recs.filter((r: any) => r.dealId === deal.id).map((r: any) => r.ruleId);
    expect(got(a).sort()).toEqual(
      ['big', 'contract', 'qualify', 'risk.noActivity', 'risk.noPower', 'risk.singleThreaded', 'risk.stalled', 'stalled-call'].sort(),
    );
    expect(got(b).sort()).toEqual(['big', 'contract', 'risk.noActivity', 'risk.noPower', 'risk.overdue', 'risk.singleThreaded'].sort());
    expect(recs.slice(0, 2).map((r: any) => [r.ruleId, r.dealId])).toEqual([
      ['risk.overdue', b.id],
      ['stalled-call', a.id],
    ]);
    const rec = (rule: string, deal = a) => recs.find((r: any) => r.ruleId === rule && r.dealId === deal.id);
    expect(rec('stalled-call')).toMatchObject({ playbookId: p1.id, playbookVersion: 1, action: 'task', text: 'Call the champion', flags: [] });
    expect(rec('stalled-call').suggestedCall).toEqual({ method: 'crm.taskFollowThrough', params: { dealId: a.id, recommendationId: rec('stalled-call').id } });
    expect(rec('risk.stalled')).toMatchObject({ playbookId: null, action: 'flagRisk', flags: ['stalled'], priority: 200 });
    expect(rec('contract').suggestedCall).toEqual({
      method: 'crm.holdNextStep',
      params: { dealId: a.id, kind: 'send_contract', title: 'Send the MSA', reason: 'Big enough' },
    });
    expect(rec('big', b)).toMatchObject({ action: 'flagRisk', flags: ['bigDeal'], text: 'A big one' });
    // Nothing acted on: the deals are as they were, no task made.
    const got2 = await read(n.s, 'crm.getDeal', { dealId: a.id });
    expect([got2.deal.stage, got2.deal.version, got2.tasks]).toEqual(['lead', 1, []]);
    // Same facts and clock: the same output (ids aside); and the suggested call runs as it is.
    const again = await mutate(n.s, 'crm.runNextBestAction', { ownerId: own.id }, 'crm.nba.run');
    expect(strip(again.result.recommendations)).toEqual(strip(recs));
    const call = rec('qualify').suggestedCall;
    expect(call).toEqual({ method: 'crm.moveStage', params: { stage: 'qualified', dealId: a.id } });
    await mutate(n.s, call.method, call.params, 'crm.deal.move');
    await mutate(n.s, 'crm.moveStage', { dealId: a.id, stage: 'lead' }, 'crm.deal.move');
  });

  it('one deal, at most 10 recommendations per deal, the first by order', async () => {
    const many = Array.from({ length: 12 }, (_, i) => task(`r${String(i).padStart(2, '0')}`, { '==': [1, 1] }, `t${i}`, 50));
    const p = await playbook(n, many, { enable: true });
    const { result } = await mutate(n.s, 'crm.runNextBestAction', { dealId: b.id }, 'crm.nba.run');
    expect(result.run).toMatchObject({ dealId: b.id, ownerId: null, deals: 1, count: 10 });
    expect(result.recommendations.map((r: any) => r.ruleId)).toEqual(['r00', 'r01', 'r02', 'r03', 'r04', 'r05', 'r06', 'r07', 'r08', 'r09']);
    await mutate(n.s, 'crm.deletePlaybook', { playbookId: p.id }, 'crm.playbook.delete');
  });

  it('misuse: neither or both, unknown or other org’s deal, closed or deleted deal, unknown owner, limit, a reader', async () => {
    await refused(n.s, 'crm.runNextBestAction', {}, 'BAD_REQUEST', { message: /^dealId: give dealId/ });
    await refused(n.s, 'crm.runNextBestAction', { dealId: a.id, ownerId: own.id }, 'BAD_REQUEST', { message: /^ownerId: .*not both/ });
    await refused(n.s, 'crm.runNextBestAction', { dealId: 'deal_nosuch' }, 'NOT_FOUND', { message: 'deal deal_nosuch not found' });
    await refused(n.other, 'crm.runNextBestAction', { dealId: a.id }, 'NOT_FOUND');
    await refused(n.s, 'crm.runNextBestAction', { ownerId: 'usr_nosuch' }, 'BAD_REQUEST', { message: 'ownerId: no member usr_nosuch in this org' });
    await refused(n.s, 'crm.runNextBestAction', { ownerId: own.id, limit: 201 }, 'BAD_REQUEST', { message: /^limit: must be at most 200/ });
    await refused(n.s, 'crm.runNextBestAction', { dealId: a.id }, 'FORBIDDEN_SCOPE', { key: n.viewer.key });
    const acct = (await account(n)).id;
    const won = await deal(n, acct);
    await mutate(n.s, 'crm.closeDeal', { dealId: won.id, outcome: 'won' }, 'crm.deal.close');
    await refused(n.s, 'crm.runNextBestAction', { dealId: won.id }, 'CONFLICT', {
      message: /is won; next best action runs on open deals \(reopen it with crm\.moveStage first\)/,
    });
    const gone = await deal(n, acct);
    await mutate(n.s, 'crm.deleteDeal', { dealId: gone.id }, 'crm.deal.delete');
    await refused(n.s, 'crm.runNextBestAction', { dealId: gone.id }, 'CONFLICT', { message: /is deleted/ });
  });

  it('200 deals in at most 6 queries', async () => {
    const big = await person(n.s, 'Big book', { tier: 'member' });
    const acct = (await account(n)).id;
    await n.s.runtime.db.query(
      `INSERT INTO crm_deals (org_id, deal_id, name, account_id, owner_id, stage, status, amount_cents, currency, close_date, stage_entered_at, last_activity_at,
                              created_by, created_at, updated_at)
       SELECT $1, 'deal_bulk' || g, 'Bulk ' || g, $2, $3, 'lead', 'open', 1000 * g, 'AUD', date '2026-08-01' + g, $4, $4, $3, $4, $4 FROM generate_series(1, 205) g`,
      [n.s.org.orgId, acct, big.id, '2026-07-01T09:00:00Z'],
    );
    let queries = 0;
    const db = n.s.runtime.db;
    const counting: Queryable = {
      query: <T>(sql: string, params?: readonly unknown[]) => {
        queries++;
        return db.query<T>(sql, params);
      },
    };
    const out = await runNba(counting, n.s.org.orgId, n.owner.id, n.clock.now(), { ownerId: big.id, limit: 200 });
    expect(out.run.deals).toBe(200);
    expect(out.recommendations.length).toBeGreaterThan(200);
    // The handler adds one: the owner's member check.
    expect(queries + 1).toBeLessThanOrEqual(6);
    const { result } = await mutate(n.s, 'crm.runNextBestAction', { ownerId: big.id, limit: 200 }, 'crm.nba.run');
    expect(result.run.deals).toBe(200);
  });
});

describe('crm.taskFollowThrough', () => {
  let n: CrmOrg;
  let d: any;
  let recs: any[];
  beforeAll(async () => {
    n = await crmOrg('2026-07-01');
    d = await deal(n, (await account(n)).id, { stage: 'lead' });
    await playbook(n, [task('stalled-call', v('risk.stalled'), 'Call the champion', 100, 3)], { enable: true });
    n.clock.set('2026-07-20');
    recs = (await mutate(n.s, 'crm.runNextBestAction', { dealId: d.id }, 'crm.nba.run')).result.recommendations;
  });
  afterAll(() => n.s.close());
  const boardTask = async (taskId: string) =>
    (
      await n.s.runtime.db.query<any>('SELECT title, description, assignee, col FROM board_tasks WHERE org_id = $1 AND task_id = $2', [n.s.org.orgId, taskId])
    )[0];

  it('follows a recommendation: a board task in triage, linked to the deal; again: its task, created:false', async () => {
    const rec = recs.find((r) => r.ruleId === 'stalled-call');
    const { result, event } = await mutate(n.s, 'crm.taskFollowThrough', rec.suggestedCall.params, 'crm.task.create', { entityId: () => d.id });
    expect(result).toMatchObject({
      dealId: d.id,
      recommendationId: rec.id,
      title: 'Call the champion',
      dueDate: '2026-07-23',
      assignee: n.owner.id,
      created: true,
    });
    expect(event.payload).toEqual({ dealId: d.id, taskId: result.taskId, recommendationId: rec.id, assignee: n.owner.id });
    expect(await boardTask(result.taskId)).toMatchObject({ title: 'Call the champion', assignee: n.owner.id, col: 'triage' });
    expect((await boardTask(result.taskId)).description).toContain(`Follow-through on crm deal ${d.id}, due 2026-07-23.`);
    expect((await read(n.s, 'crm.getDeal', { dealId: d.id })).tasks).toEqual([
      { taskId: result.taskId, recommendationId: rec.id, createdAt: '2026-07-20T09:00:00.000Z' },
    ]);
    const again = await noop(n.s, 'crm.taskFollowThrough', rec.suggestedCall.params, 'crm.task.create');
    expect(again).toEqual({ ...result, created: false });
  });

  it('a built-in risk recommendation, and a task by title with a due date and an assignee', async () => {
    const risk = recs.find((r) => r.ruleId === 'risk.stalled');
    const { result } = await mutate(n.s, 'crm.taskFollowThrough', risk.suggestedCall.params, 'crm.task.create');
    expect(result.title).toMatch(/^Stalled: /);
    expect(result.dueDate).toBeNull();
    const own = await mutate(
      n.s,
      'crm.taskFollowThrough',
      { dealId: d.id, title: 'Send pricing', dueDate: '2026-08-01', assignee: n.mia.id },
      'crm.task.create',
    );
    expect(own.result).toMatchObject({ recommendationId: null, title: 'Send pricing', dueDate: '2026-08-01', assignee: n.mia.id, created: true });
    expect(await boardTask(own.result.taskId)).toMatchObject({ title: 'Send pricing', assignee: n.mia.id });
  });

  it('misuse: nothing to do, a recommendation of another deal, unknown ids, other org, closed or deleted deal, a reader', async () => {
    const other = await deal(n, (await account(n)).id);
    const rec = recs[0];
    await refused(n.s, 'crm.taskFollowThrough', { dealId: d.id }, 'BAD_REQUEST', { message: /^title: give title, or recommendationId/ });
    await refused(n.s, 'crm.taskFollowThrough', { dealId: other.id, recommendationId: rec.id }, 'BAD_REQUEST', {
      message: `recommendationId: recommends on deal ${d.id}, not ${other.id}`,
    });
    await refused(n.s, 'crm.taskFollowThrough', { dealId: d.id, recommendationId: 'nbr_nosuch' }, 'NOT_FOUND', {
      message: 'recommendation nbr_nosuch not found',
    });
    await refused(n.s, 'crm.taskFollowThrough', { dealId: 'deal_nosuch', title: 'x' }, 'NOT_FOUND', { message: 'deal deal_nosuch not found' });
    await refused(n.other, 'crm.taskFollowThrough', { dealId: d.id, title: 'x' }, 'NOT_FOUND');
    await refused(n.s, 'crm.taskFollowThrough', { dealId: d.id, title: 'x', assignee: 'usr_nosuch' }, 'BAD_REQUEST', {
      message: 'assignee: no member usr_nosuch in this org',
    });
    await refused(n.s, 'crm.taskFollowThrough', { dealId: d.id, title: 'x' }, 'FORBIDDEN_SCOPE', { key: n.viewer.key });
    await mutate(n.s, 'crm.closeDeal', { dealId: other.id, outcome: 'lost', lostReason: 'x' }, 'crm.deal.close');
    await refused(n.s, 'crm.taskFollowThrough', { dealId: other.id, title: 'x' }, 'CONFLICT', { message: /is lost; reopen it \(crm\.moveStage\)/ });
    await mutate(n.s, 'crm.deleteDeal', { dealId: other.id }, 'crm.deal.delete');
    await refused(n.s, 'crm.taskFollowThrough', { dealId: other.id, title: 'x' }, 'CONFLICT', { message: /is deleted/ });
  });
});
