import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approved, head, held, mutate, ok, otherOrg, refused } from '../../../helpers/calls.js';
import { context, govOrg, task, type GovOrg } from '../escalation/setup.js';
import { setRights } from '../../../helpers/people.js';

/*
 * handoff.offer, accept, decline, cancel: main paths and misuse. Rights: `handoff.legal` decided by the lead with
 * perform [humans]; `handoff.ops` perform [agents]; elsewhere the default (the owner hands off what it holds).
 */

let o: GovOrg;
beforeAll(async () => {
  o = await govOrg();
  await setRights(o.s, [
    { area: 'handoff.legal', decidedBy: o.lead.id, perform: ['humans'] },
    { area: 'handoff.ops', decidedBy: 'owner', perform: ['agents'] },
    { area: 'refunds', decidedBy: o.mia.id },
  ]);
});
afterAll(() => o.s.close());

const offerOf = (subject: { kind: string; id: string }, to: string, extra: Record<string, unknown> = {}) => ({ subject, to, brief: 'Over to you.', ...extra });
const taskRef = (t: { id: string }) => ({ kind: 'task', id: t.id });

describe('handoff.offer', () => {
  it('the claimer offers its task: offered, expiring in 72 h by the clock; one event of ids; /board.context shows it', async () => {
    const t = await task(o.s, o.agentA.key);
    const { result, event } = await mutate(o.s, 'handoff.offer', offerOf(taskRef(t), o.agentB.id), 'handoff.offer.create', { key: o.agentA.key });
    expect(result).toMatchObject({
      changed: true,
      handoff: {
        subject: taskRef(t),
        from: o.agentA.id,
        to: o.agentB.id,
        holderAtOffer: o.agentA.id,
        status: 'offered',
        area: null,
        override: false,
        approvalId: null,
      },
    });
    expect(result.handoff.offeredAt).toBe('2026-11-20T09:00:00.000Z');
    expect(result.handoff.expiresAt).toBe('2026-11-23T09:00:00.000Z');
    expect(event.payload).toEqual({
      handoffId: result.handoff.id,
      subjectKind: 'task',
      subjectId: t.id,
      from: o.agentA.id,
      to: o.agentB.id,
      holder: o.agentA.id,
      expiresAt: '2026-11-23T09:00:00.000Z',
      status: 'offered',
      override: false,
      approvalId: null,
      expiredOffers: 0,
    });
    expect((await context(o.s, t.id)).pendingHandoff).toMatchObject({ id: result.handoff.id, to: o.agentB.id, status: 'offered' });
  });

  it('an admin offers a task it does not hold (override); a non-holder agent -> GOVERNANCE_NOT_READY naming the right', async () => {
    const t = await task(o.s, o.agentA.key);
    expect(await refused(o.s, 'handoff.offer', offerOf(taskRef(t), o.mia.id), 'GOVERNANCE_NOT_READY', { key: o.agentB.key })).toMatch(
      /needs the default right for a handoff \(decidedBy owner/,
    );
    const { result, event } = await mutate(o.s, 'handoff.offer', offerOf(taskRef(t), o.mia.id), 'handoff.offer.create', { key: o.owner.key });
    expect(result.handoff).toMatchObject({ from: o.owner.id, holderAtOffer: o.agentA.id, override: true });
    expect(event.payload.override).toBe(true);
  });

  it('where the rights give the handoff to a human, the holder’s offer holds for that human; approved, the retry offers', async () => {
    const t = await task(o.s, o.agentA.key);
    const params = offerOf(taskRef(t), o.mia.id, { area: 'legal' });
    const before = await head(o.s.client);
    const approval = await held(o.s, 'handoff.offer', params, { key: o.agentA.key });
    expect(approval).toMatchObject({ actionClass: 'handoff.offer', deciders: [o.lead.id], subject: { kind: 'handoff.signature', subjectId: t.id } });
    expect((await context(o.s, t.id)).pendingHandoff).toBeNull();
    const approvalId = await approved(o.s, approval, o.agentA.key, o.lead.key);
    const done = await ok(o.s, 'handoff.offer', { ...params, approvalId }, o.agentA.key);
    expect(done.handoff).toMatchObject({ status: 'offered', area: 'legal', approvalId, override: false });
    expect(before).toBeLessThan(await head(o.s.client));
  });

  it('an agent at its compact’s maxOpenHandoffs -> CONFLICT; answered or expired offers do not count; a human has no compact limit', async () => {
    const terms = { commitments: { agent: [], sponsor: [] }, limits: { maxOpenHandoffs: 1 } };
    await ok(o.s, 'compact.upsert', { scope: o.agentB.id, sponsorId: o.lead.id, terms }, o.owner.key);
    const [t1, t2] = [await task(o.s, o.agentB.key), await task(o.s, o.agentB.key)];
    const first = (await ok(o.s, 'handoff.offer', offerOf(taskRef(t1), o.agentA.id), o.agentB.key)).handoff;
    expect(await refused(o.s, 'handoff.offer', offerOf(taskRef(t2), o.agentA.id), 'CONFLICT', { key: o.agentB.key })).toBe(
      `${o.agentB.id} has 1 open handoff offer, its compact's maxOpenHandoffs (1): cancel one (handoff.cancel) or wait for answers first`,
    );
    await ok(o.s, 'handoff.decline', { handoffId: first.id, reason: 'Busy.' }, o.agentA.key);
    expect((await ok(o.s, 'handoff.offer', offerOf(taskRef(t2), o.agentA.id), o.agentB.key)).changed).toBe(true);
    // The org compact limits every agent without its own, never a human.
    await ok(o.s, 'compact.upsert', { scope: 'org', terms: { ...terms, limits: { maxOpenHandoffs: 0 } } }, o.owner.key);
    try {
      const [t3, t4] = [await task(o.s, undefined, o.mia.id), await task(o.s, o.agentA.key)];
      expect((await ok(o.s, 'handoff.offer', offerOf(taskRef(t3), o.max.id), o.mia.key)).changed).toBe(true);
      expect(await refused(o.s, 'handoff.offer', offerOf(taskRef(t4), o.agentB.id), 'CONFLICT', { key: o.agentA.key })).toMatch(
        /has \d+ open handoff offers?, its compact's maxOpenHandoffs \(0\)/,
      );
    } finally {
      await ok(o.s, 'compact.upsert', { scope: 'org', terms: { ...terms, limits: {} } }, o.owner.key);
    }
  });

  it('misuse: to yourself, to the holder, an unknown member, outside perform, an agent for an escalation -> BAD_REQUEST naming to', async () => {
    const t = await task(o.s, o.agentA.key);
    expect(await refused(o.s, 'handoff.offer', offerOf(taskRef(t), o.agentA.id), 'BAD_REQUEST', { key: o.agentA.key })).toMatch(/^to: agt_\w+ is you/);
    expect(await refused(o.s, 'handoff.offer', offerOf(taskRef(t), o.agentA.id), 'BAD_REQUEST', { key: o.owner.key })).toMatch(
      /^to: agt_\w+ holds task .* already/,
    );
    expect(await refused(o.s, 'handoff.offer', offerOf(taskRef(t), 'usr_nobody123'), 'BAD_REQUEST', { key: o.agentA.key })).toBe(
      'to: no active member usr_nobody123 in this org',
    );
    expect(await refused(o.s, 'handoff.offer', offerOf(taskRef(t), o.agentB.id, { area: 'legal' }), 'BAD_REQUEST', { key: o.agentA.key })).toMatch(
      /^to: agt_\w+ is outside the perform selectors \(humans\) of the right "handoff.legal"/,
    );
    expect(await refused(o.s, 'handoff.offer', offerOf(taskRef(t), o.mia.id, { area: 'ops' }), 'BAD_REQUEST', { key: o.agentA.key })).toMatch(
      /^to: usr_\w+ is outside the perform selectors \(agents\)/,
    );
    const e = (await ok(o.s, 'escalation.create', { title: 'x', reason: 'risk', to: o.mia.id }, o.agentA.key)).escalation;
    expect(await refused(o.s, 'handoff.offer', offerOf({ kind: 'escalation', id: e.id }, o.agentB.id), 'BAD_REQUEST', { key: o.mia.key })).toBe(
      'to: must be a human: humans answer escalations',
    );
    expect(await refused(o.s, 'handoff.offer', offerOf({ kind: 'task', id: e.id }, o.agentB.id), 'BAD_REQUEST', { key: o.agentA.key })).toBe(
      'subject.id: must be an id of the form task_… for a task',
    );
    expect(await refused(o.s, 'handoff.offer', offerOf(taskRef(t), o.agentB.id, { expiresInHours: 0 }), 'BAD_REQUEST', { key: o.agentA.key })).toBe(
      'expiresInHours: must be >= 1',
    );
  });

  it('misuse: a done task -> CONFLICT; unknown or another org’s subject -> NOT_FOUND; without handoff.send -> FORBIDDEN_SCOPE', async () => {
    const t = await task(o.s, o.agentA.key);
    await ok(o.s, 'board.complete', { taskId: t.id }, o.agentA.key);
    expect(await refused(o.s, 'handoff.offer', offerOf(taskRef(t), o.agentB.id), 'CONFLICT', { key: o.owner.key })).toMatch(
      /^task task_\w+ is done: only an open one is handed off/,
    );
    expect(await refused(o.s, 'handoff.offer', offerOf({ kind: 'task', id: 'task_0123456789abcdef' }, o.agentB.id), 'NOT_FOUND', { key: o.agentA.key })).toBe(
      'task task_0123456789abcdef not found',
    );
    const foreign = await (await otherOrg(o.s)).ok('board.createTask', { title: 'theirs' });
    expect(await refused(o.s, 'handoff.offer', offerOf(taskRef(foreign), o.agentB.id), 'NOT_FOUND', { key: o.owner.key })).toMatch(/not found/);
    expect(await refused(o.s, 'handoff.offer', offerOf(taskRef(t), o.agentB.id), 'FORBIDDEN_SCOPE', { key: o.reader.key })).toMatch(
      /missing scope handoff\.send/,
    );
  });
});

describe('handoff.accept', () => {
  it('a decision: its driver becomes the recipient, who alone proposes its next version', async () => {
    const d = (await ok(o.s, 'decision.propose', { title: 'Refund cap', area: 'refunds', decision: 'Cap refunds at 1000.' }, o.agentA.key)).decision;
    const offered = (await ok(o.s, 'handoff.offer', offerOf({ kind: 'decision', id: d.id }, o.agentB.id), o.agentA.key)).handoff;
    expect(offered.area).toBe('refunds');
    const { result, event } = await mutate(o.s, 'handoff.accept', { handoffId: offered.id }, 'handoff.offer.accept', { key: o.agentB.key });
    expect(result.handoff).toMatchObject({ status: 'accepted', closedBy: o.agentB.id });
    expect(event.payload).toEqual({
      handoffId: offered.id,
      subjectKind: 'decision',
      subjectId: d.id,
      from: o.agentA.id,
      to: o.agentB.id,
      previousHolder: o.agentA.id,
      previousDriver: o.agentA.id,
      status: 'accepted',
    });
    expect((await o.s.client.get('decision.list', { id: d.id })).body.decision.driver).toBe(o.agentB.id);
    expect(await refused(o.s, 'decision.propose', { decisionId: d.id, decision: 'Cap at 500.' }, 'CONFLICT', { key: o.agentA.key })).toMatch(/driven by agt_/);
  });

  it('an escalation: the recipient is its assignee, the chain restarting at them (level 1 from now)', async () => {
    const e = (await ok(o.s, 'escalation.create', { title: 'Refund dispute', reason: 'outside_rights', area: 'refunds', severity: 'low' }, o.agentA.key))
      .escalation;
    expect(e).toMatchObject({ assignee: o.mia.id, chain: [o.mia.id, ...o.admins] });
    const offered = (await ok(o.s, 'handoff.offer', offerOf({ kind: 'escalation', id: e.id }, o.max.id), o.mia.key)).handoff;
    const accepted = await mutate(o.s, 'handoff.accept', { handoffId: offered.id }, 'handoff.offer.accept', { key: o.max.key });
    expect(accepted.event.payload).toMatchObject({ previousHolder: o.mia.id, previousAssignee: o.mia.id, previousLevel: 1 });
    const now = (await ok(o.s, 'escalation.list', { assignedTo: 'me' }, o.max.key)).escalations.find((x: any) => x.id === e.id);
    expect(now).toMatchObject({ level: 1, assignee: o.max.id, chain: [o.max.id, ...o.admins] });
    // The new holder resolves it: it is in the chain now.
    expect((await ok(o.s, 'escalation.resolve', { escalationId: e.id, outcome: 'directed', resolution: 'Refund half.' }, o.max.key)).changed).toBe(true);
  });

  it('misuse: not the recipient -> FORBIDDEN_SCOPE; again -> changed:false; subject moved -> CONFLICT; unknown or another org’s id -> NOT_FOUND', async () => {
    const t = await task(o.s, undefined, o.agentA.id);
    const h = (await ok(o.s, 'handoff.offer', offerOf(taskRef(t), o.agentB.id), o.agentA.key)).handoff;
    expect(await refused(o.s, 'handoff.accept', { handoffId: h.id }, 'CONFLICT', { key: o.agentA.key })).toBe(
      `handoff ${h.id} is offered to ${o.agentB.id}: only they accept it; nothing changed`,
    );
    // Someone else took the task meanwhile (a claim): the offer no longer stands.
    await ok(o.s, 'board.claim', { taskId: t.id }, o.mia.key);
    expect(await refused(o.s, 'handoff.accept', { handoffId: h.id }, 'CONFLICT', { key: o.agentB.key })).toMatch(
      new RegExp(
        `^task ${t.id} moved since handoff ${h.id} was offered \\(held by ${o.mia.id} now, ${o.agentA.id} when offered\\): the offer no longer stands; ${o.agentA.id} cancels it`,
      ),
    );
    await ok(o.s, 'handoff.cancel', { handoffId: h.id, reason: 'Mia has it.' }, o.agentA.key);
    expect(await refused(o.s, 'handoff.accept', { handoffId: h.id }, 'CONFLICT', { key: o.agentB.key })).toMatch(
      /^handoff hof_\w+ is cancelled already: it is closed; a new offer/,
    );

    const u = await task(o.s, o.agentA.key);
    const g = (await ok(o.s, 'handoff.offer', offerOf(taskRef(u), o.agentB.id), o.agentA.key)).handoff;
    await ok(o.s, 'handoff.accept', { handoffId: g.id }, o.agentB.key);
    const again = await mutate(o.s, 'handoff.accept', { handoffId: g.id }, 'handoff.offer.accept', { key: o.agentB.key });
    expect(again.result.changed).toBe(false);
    expect(again.event.payload).toMatchObject({ noop: true, status: 'accepted' });
    expect(await refused(o.s, 'handoff.accept', { handoffId: 'hof_0123456789abcdef' }, 'NOT_FOUND', { key: o.agentB.key })).toBe(
      'handoff hof_0123456789abcdef not found',
    );
    const other = await otherOrg(o.s);
    await other.ok('governance.set_decision_rights', { rights: [{ area: 'x', decidedBy: 'humans' }] });
    const mine = await other.ok('board.createTask', { title: 'theirs' });
    await other.ok('board.assignTask', { taskId: mine.id, assignee: (await other.get('org/whoami')).body.principal.id });
    const agent = await other.mint({ tier: 'agent' });
    const theirs = (await other.ok('handoff.offer', offerOf(taskRef(mine), agent.principal.id))).handoff;
    expect(await refused(o.s, 'handoff.accept', { handoffId: theirs.id }, 'NOT_FOUND', { key: o.agentB.key })).toMatch(/not found/);
  });
});

describe('handoff.decline', () => {
  it('the recipient declines with a reason; again -> changed:false; anyone else -> FORBIDDEN_SCOPE; then the subject may be offered again', async () => {
    const t = await task(o.s, o.agentA.key);
    const h = (await ok(o.s, 'handoff.offer', offerOf(taskRef(t), o.agentB.id), o.agentA.key)).handoff;
    expect(await refused(o.s, 'handoff.decline', { handoffId: h.id, reason: 'no' }, 'CONFLICT', { key: o.agentA.key })).toMatch(/only they decline it/);
    const { result, event } = await mutate(o.s, 'handoff.decline', { handoffId: h.id, reason: 'I am at capacity.' }, 'handoff.offer.decline', {
      key: o.agentB.key,
    });
    expect(result.handoff).toMatchObject({ status: 'declined', reason: 'I am at capacity.', closedBy: o.agentB.id });
    expect(event.payload).toEqual({ handoffId: h.id, subjectKind: 'task', subjectId: t.id, status: 'declined' });
    expect(
      (await mutate(o.s, 'handoff.decline', { handoffId: h.id, reason: 'Still no.' }, 'handoff.offer.decline', { key: o.agentB.key })).result.changed,
    ).toBe(false);
    expect(await refused(o.s, 'handoff.accept', { handoffId: h.id }, 'CONFLICT', { key: o.agentB.key })).toMatch(/is declined already/);
    expect((await context(o.s, t.id)).pendingHandoff).toBeNull();
    expect((await ok(o.s, 'handoff.offer', offerOf(taskRef(t), o.mia.id), o.agentA.key)).changed).toBe(true);
    expect(await refused(o.s, 'handoff.decline', { handoffId: h.id, reason: '' }, 'BAD_REQUEST', { key: o.agentB.key })).toMatch(/^reason: /);
  });
});

describe('handoff.cancel', () => {
  it('the offerer cancels; again -> changed:false; the decider (an admin) cancels another; anyone else -> FORBIDDEN_SCOPE; accepted -> CONFLICT', async () => {
    const t = await task(o.s, o.agentA.key);
    const h = (await ok(o.s, 'handoff.offer', offerOf(taskRef(t), o.agentB.id), o.agentA.key)).handoff;
    expect(await refused(o.s, 'handoff.cancel', { handoffId: h.id, reason: 'mine' }, 'CONFLICT', { key: o.agentB.key })).toMatch(
      /^only its offerer agt_\w+ or the handoff's decider/,
    );
    const { result, event } = await mutate(o.s, 'handoff.cancel', { handoffId: h.id, reason: 'Changed plans.' }, 'handoff.offer.cancel', { key: o.agentA.key });
    expect(result.handoff).toMatchObject({ status: 'cancelled', reason: 'Changed plans.' });
    expect(event.payload).toEqual({ handoffId: h.id, subjectKind: 'task', subjectId: t.id, status: 'cancelled', override: false });
    expect((await mutate(o.s, 'handoff.cancel', { handoffId: h.id, reason: 'again' }, 'handoff.offer.cancel', { key: o.agentA.key })).result.changed).toBe(
      false,
    );

    const g = (await ok(o.s, 'handoff.offer', offerOf(taskRef(t), o.agentB.id), o.agentA.key)).handoff;
    const byAdmin = await mutate(o.s, 'handoff.cancel', { handoffId: g.id, reason: 'Not now.' }, 'handoff.offer.cancel', { key: o.owner.key });
    expect(byAdmin.event.payload.override).toBe(true);

    const k = (await ok(o.s, 'handoff.offer', offerOf(taskRef(t), o.agentB.id), o.agentA.key)).handoff;
    await ok(o.s, 'handoff.accept', { handoffId: k.id }, o.agentB.key);
    expect(await refused(o.s, 'handoff.cancel', { handoffId: k.id, reason: 'too late' }, 'CONFLICT', { key: o.agentA.key })).toMatch(
      /is accepted already: it is closed/,
    );
  });
});
