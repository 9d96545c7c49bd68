import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { head, mutate, ok, otherOrg, refused, rpc } from '../../../helpers/calls.js';
import { daysLater, govOrg, task, type GovOrg } from './setup.js';
import { setRights } from '../../../helpers/people.js';

/* escalation.create, escalation.list, escalation.resolve: main paths and misuse; levels read from the test clock. */

let o: GovOrg;
beforeAll(async () => {
  o = await govOrg();
  await setRights(o.s, [{ area: 'refunds', decidedBy: o.mia.id, escalateTo: o.max.id }]);
});
afterAll(() => o.s.close());

describe('escalation.create', () => {
  it('raises one: chain = the area’s decider, its escalateTo, then the admins; level 1 with the decider assigned; one event of ids', async () => {
    const t = await task(o.s);
    const { result, event } = await mutate(
      o.s,
      'escalation.create',
      { title: 'Refund of 900 EUR', reason: 'outside_rights', area: 'refunds', subject: t.id },
      'escalation.case.create',
      { key: o.agentA.key },
    );
    expect(result.changed).toBe(true);
    expect(result.escalation).toMatchObject({
      status: 'open',
      reason: 'outside_rights',
      severity: 'normal',
      area: 'refunds',
      subject: t.id,
      raisedBy: o.agentA.id,
      to: null,
      chain: [o.mia.id, o.max.id, ...o.admins],
      level: 1,
      assignee: o.mia.id,
      escalateAfterMinutes: 240,
      raisedAt: '2026-11-20T09:00:00.000Z',
      nextLevelAt: '2026-11-20T13:00:00.000Z',
      outcome: null,
    });
    expect(event.actor).toBe(o.agentA.id);
    expect(event.payload).toEqual({
      escalationId: result.escalation.id,
      reason: 'outside_rights',
      severity: 'normal',
      subjectId: t.id,
      to: null,
      chainLength: 4,
      level: 1,
      assignee: o.mia.id,
      escalateAfterMinutes: 240,
    });
  });

  it('`to` comes first; agents and inactive ids are never in the chain; without an area the admins close it', async () => {
    const r = (await ok(o.s, 'escalation.create', { title: 'Stuck on the VPN', reason: 'blocked', severity: 'critical', to: o.max.id }, o.agentA.key))
      .escalation;
    expect(r).toMatchObject({ to: o.max.id, chain: [o.max.id, ...o.admins], escalateAfterMinutes: 15, assignee: o.max.id });
    // A human raiser is left out of its own chain.
    const own = (await ok(o.s, 'escalation.create', { title: 'Contract risk', reason: 'risk', area: 'refunds' }, o.mia.key)).escalation;
    expect(own.chain).toEqual([o.max.id, ...o.admins]);
  });

  it('an open escalation of the same raiser and subject is returned, not duplicated (changed:false, its event noop)', async () => {
    const t = await task(o.s);
    const first = (await ok(o.s, 'escalation.create', { title: 'Deadline Friday', reason: 'deadline', subject: t.id }, o.agentA.key)).escalation;
    const { result, event } = await mutate(
      o.s,
      'escalation.create',
      { title: 'Deadline Friday again', reason: 'risk', subject: t.id },
      'escalation.case.create',
      { key: o.agentA.key },
    );
    expect(result).toMatchObject({ changed: false, escalation: { id: first.id, title: 'Deadline Friday', reason: 'deadline' } });
    expect(event.payload).toMatchObject({ escalationId: first.id, noop: true });
    // Another raiser about the same subject raises its own.
    const other = (await ok(o.s, 'escalation.create', { title: 'Deadline Friday', reason: 'deadline', subject: t.id }, o.agentB.key)).escalation;
    expect(other.id).not.toBe(first.id);
  });

  it('idempotency key: the same call replays the stored frame and appends nothing', async () => {
    const params = { title: 'Replay me', reason: 'blocked' };
    const first = await rpc(o.s, 'escalation.create', params, o.agentA.key, 'esc-replay-1');
    const at = await head(o.s.client);
    const again = await rpc(o.s, 'escalation.create', params, o.agentA.key, 'esc-replay-1');
    expect(again.raw).toBe(first.raw);
    expect(await head(o.s.client)).toBe(at);
  });

  it('misuse: `to` an agent, unknown or yourself -> BAD_REQUEST naming to; bad fields; unknown subject -> NOT_FOUND; no org.write -> FORBIDDEN_SCOPE', async () => {
    expect(await refused(o.s, 'escalation.create', { title: 'x', reason: 'risk', to: o.agentB.id }, 'BAD_REQUEST', { key: o.agentA.key })).toMatch(
      /^to: must be a human/,
    );
    expect(await refused(o.s, 'escalation.create', { title: 'x', reason: 'risk', to: 'usr_nobody123' }, 'BAD_REQUEST', { key: o.agentA.key })).toMatch(
      /^to: must be a human: no active human member usr_nobody123/,
    );
    expect(await refused(o.s, 'escalation.create', { title: 'x', reason: 'risk', to: o.mia.id }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(/^to: .* is you/);
    expect(await refused(o.s, 'escalation.create', { title: 'x', reason: 'bored' }, 'BAD_REQUEST', { key: o.agentA.key })).toMatch(/^reason: must be one of/);
    expect(await refused(o.s, 'escalation.create', { title: '', reason: 'risk' }, 'BAD_REQUEST', { key: o.agentA.key })).toMatch(/^title: /);
    expect(await refused(o.s, 'escalation.create', { title: 'x', reason: 'risk', urgency: 1 }, 'BAD_REQUEST', { key: o.agentA.key })).toBe(
      'urgency: unknown field',
    );
    expect(await refused(o.s, 'escalation.create', { title: 'x', reason: 'risk', subject: 'task_0123456789abcdef' }, 'NOT_FOUND', { key: o.agentA.key })).toBe(
      'task task_0123456789abcdef not found',
    );
    const foreign = await (await otherOrg(o.s)).ok('board.createTask', { title: 'theirs' });
    expect(await refused(o.s, 'escalation.create', { title: 'x', reason: 'risk', subject: foreign.id }, 'NOT_FOUND', { key: o.agentA.key })).toMatch(
      /not found/,
    );
    expect(await refused(o.s, 'escalation.create', { title: 'x', reason: 'risk' }, 'FORBIDDEN_SCOPE', { key: o.reader.key })).toMatch(
      /missing scope org\.write/,
    );
  });
});

describe('escalation.list', () => {
  it('level and assignee as of now; assignedTo=me follows the clock; subjectId and status filter; no event', async () => {
    const t = await task(o.s);
    const e = (await ok(o.s, 'escalation.create', { title: 'Slow climb', reason: 'blocked', severity: 'low', area: 'refunds', subject: t.id }, o.agentB.key))
      .escalation;
    const at = await head(o.s.client);
    const mine = async (p: { key: string }) => (await ok(o.s, 'escalation.list', { assignedTo: 'me' }, p.key)).escalations.map((x: any) => x.id);
    expect(await mine(o.mia)).toContain(e.id);
    expect(await mine(o.max)).not.toContain(e.id);
    daysLater(o.clock, 1);
    try {
      const [now] = (await ok(o.s, 'escalation.list', { subjectId: t.id })).escalations;
      expect(now).toMatchObject({ id: e.id, level: 2, assignee: o.max.id, nextLevelAt: '2026-11-22T09:00:00.000Z' });
      expect(await mine(o.mia)).not.toContain(e.id);
      expect(await mine(o.max)).toContain(e.id);
      daysLater(o.clock, 30);
      const top = (await ok(o.s, 'escalation.list', { subjectId: t.id })).escalations[0];
      expect(top).toMatchObject({ level: 4, assignee: o.admins[1], nextLevelAt: null });
    } finally {
      o.clock.set('2026-11-20');
    }
    expect((await ok(o.s, 'escalation.list', { status: 'resolved', subjectId: t.id })).escalations).toEqual([]);
    expect(await head(o.s.client)).toBe(at);
  });

  it('pages newest first with nextCursor; a foreign cursor is BAD_REQUEST cursor', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await ok(o.s, 'escalation.create', { title: `page ${i}`, reason: 'risk', to: o.lead.id }, o.agentB.key)).escalation.id);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await ok(o.s, 'escalation.list', { limit: 2, ...(cursor ? { cursor } : {}) });
      expect(page.escalations.length).toBeLessThanOrEqual(2);
      seen.push(...page.escalations.map((x: any) => x.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of ids) expect(seen).toContain(id);
    expect(await refused(o.s, 'escalation.list', { cursor: 'nope' }, 'BAD_REQUEST')).toBe('cursor: not a cursor this list returned');
    for (const forged of [
      ['2026-13-01T00:00:00.000Z', 'esc_x'],
      ['2026', 'esc_x'],
      ['2026-11-20T09:00:00.000Z', 7],
    ]) {
      const cursor = Buffer.from(JSON.stringify(forged)).toString('base64url');
      expect(await refused(o.s, 'escalation.list', { cursor }, 'BAD_REQUEST')).toBe('cursor: not a cursor this list returned');
    }
    expect(await refused(o.s, 'escalation.list', { assignedTo: 'you' }, 'BAD_REQUEST')).toMatch(/^assignedTo: /);
  });

  it('another org sees none of them', async () => {
    const other = await otherOrg(o.s);
    expect((await other.ok('escalation.list', {})).escalations).toEqual([]);
  });
});

describe('escalation.resolve', () => {
  const raise = async (key: string, extra: Record<string, unknown> = {}) =>
    (await ok(o.s, 'escalation.create', { title: 'Needs a call', reason: 'outside_rights', area: 'refunds', ...extra }, key)).escalation;

  it('a human of the chain resolves it (decided, with its decision); the level freezes; one event of ids', async () => {
    const e = await raise(o.agentA.key);
    const d = (await ok(o.s, 'decision.propose', { title: 'Refund policy', area: 'refunds', decision: 'Refund up to 1000.' }, o.owner.key)).decision;
    const { result, event } = await mutate(
      o.s,
      'escalation.resolve',
      { escalationId: e.id, outcome: 'decided', resolution: 'See the decision.', decisionId: d.id },
      'escalation.case.resolve',
      { key: o.max.key },
    );
    expect(result).toMatchObject({
      changed: true,
      escalation: { status: 'resolved', outcome: 'decided', decisionId: d.id, resolvedBy: o.max.id, level: 1, assignee: o.mia.id, nextLevelAt: null },
    });
    expect(event.payload).toEqual({ escalationId: e.id, outcome: 'decided', status: 'resolved', level: 1, assignee: o.mia.id, decisionId: d.id });
    daysLater(o.clock, 5);
    try {
      expect((await ok(o.s, 'escalation.list', { status: 'resolved' })).escalations.find((x: any) => x.id === e.id).level).toBe(1);
    } finally {
      o.clock.set('2026-11-20');
    }
  });

  it('the same outcome again answers changed:false (event noop); another outcome -> CONFLICT naming the state', async () => {
    const e = await raise(o.agentA.key);
    await ok(o.s, 'escalation.resolve', { escalationId: e.id, outcome: 'dismissed', resolution: 'Not needed.' }, o.owner.key);
    const { result, event } = await mutate(
      o.s,
      'escalation.resolve',
      { escalationId: e.id, outcome: 'dismissed', resolution: 'Still not.' },
      'escalation.case.resolve',
      { key: o.mia.key },
    );
    expect(result).toMatchObject({ changed: false, escalation: { resolvedBy: o.owner.id, resolution: 'Not needed.' } });
    expect(event.payload).toMatchObject({ noop: true, status: 'resolved' });
    expect(await refused(o.s, 'escalation.resolve', { escalationId: e.id, outcome: 'directed', resolution: 'Do it.' }, 'CONFLICT', { key: o.mia.key })).toMatch(
      /is resolved already \(dismissed by usr_\w+ at .*\): it is closed; raise a new one/,
    );
  });

  it('the raiser only withdraws: an agent’s other outcome -> GOVERNANCE_NOT_READY; the raiser’s other outcome or anyone else’s withdrawal -> CONFLICT', async () => {
    const e = await raise(o.agentA.key);
    expect(
      await refused(o.s, 'escalation.resolve', { escalationId: e.id, outcome: 'directed', resolution: 'Do it.' }, 'GOVERNANCE_NOT_READY', {
        key: o.agentA.key,
      }),
    ).toMatch(/^an agent never resolves an escalation/);
    expect(
      await refused(o.s, 'escalation.resolve', { escalationId: e.id, outcome: 'dismissed', resolution: 'No.' }, 'GOVERNANCE_NOT_READY', { key: o.agentB.key }),
    ).toMatch(/^an agent never resolves/);
    expect(
      await refused(o.s, 'escalation.resolve', { escalationId: e.id, outcome: 'withdrawn', resolution: 'Mine now.' }, 'CONFLICT', { key: o.mia.key }),
    ).toMatch(/^only its raiser agt_\w+ withdraws/);
    const { result } = await mutate(
      o.s,
      'escalation.resolve',
      { escalationId: e.id, outcome: 'withdrawn', resolution: 'Solved it myself.' },
      'escalation.case.resolve',
      { key: o.agentA.key },
    );
    expect(result.escalation).toMatchObject({ status: 'resolved', outcome: 'withdrawn', resolvedBy: o.agentA.id });

    const byHuman = await raise(o.mia.key);
    expect(
      await refused(o.s, 'escalation.resolve', { escalationId: byHuman.id, outcome: 'dismissed', resolution: 'x' }, 'CONFLICT', { key: o.mia.key }),
    ).toMatch(/^you raised .*: you only withdraw it/);
  });

  it('a human outside the chain who is not an admin -> FORBIDDEN_SCOPE; an admin outside it resolves', async () => {
    const e = await raise(o.agentA.key, { to: o.max.id, area: undefined });
    expect(e.chain).not.toContain(o.mia.id);
    expect(
      await refused(o.s, 'escalation.resolve', { escalationId: e.id, outcome: 'directed', resolution: 'x' }, 'FORBIDDEN_SCOPE', { key: o.mia.key }),
    ).toMatch(/is not in the chain of escalation/);
    expect((await ok(o.s, 'escalation.resolve', { escalationId: e.id, outcome: 'directed', resolution: 'Go ahead.' }, o.owner.key)).changed).toBe(true);
  });

  it('misuse: decisionId without outcome decided -> BAD_REQUEST; unknown decision, unknown or another org’s escalation -> NOT_FOUND; no org.write -> FORBIDDEN_SCOPE', async () => {
    const e = await raise(o.agentA.key);
    expect(
      await refused(
        o.s,
        'escalation.resolve',
        { escalationId: e.id, outcome: 'directed', resolution: 'x', decisionId: 'dec_0123456789abcdef' },
        'BAD_REQUEST',
        { key: o.mia.key },
      ),
    ).toBe('decisionId: only with outcome decided (not directed)');
    expect(
      await refused(o.s, 'escalation.resolve', { escalationId: e.id, outcome: 'decided', resolution: 'x', decisionId: 'dec_0123456789abcdef' }, 'NOT_FOUND', {
        key: o.mia.key,
      }),
    ).toBe('decision dec_0123456789abcdef not found');
    expect(
      await refused(o.s, 'escalation.resolve', { escalationId: 'esc_0123456789abcdef', outcome: 'directed', resolution: 'x' }, 'NOT_FOUND', { key: o.mia.key }),
    ).toBe('escalation esc_0123456789abcdef not found');
    const other = await otherOrg(o.s);
    const theirs = (await other.ok('escalation.create', { title: 'theirs', reason: 'risk' })).escalation;
    expect(
      await refused(o.s, 'escalation.resolve', { escalationId: theirs.id, outcome: 'directed', resolution: 'x' }, 'NOT_FOUND', { key: o.owner.key }),
    ).toMatch(/not found/);
    expect(await refused(o.s, 'escalation.resolve', { escalationId: e.id, outcome: 'sideways', resolution: 'x' }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(
      /^outcome: must be one of/,
    );
    expect(
      await refused(o.s, 'escalation.resolve', { escalationId: e.id, outcome: 'directed', resolution: 'x' }, 'FORBIDDEN_SCOPE', { key: o.reader.key }),
    ).toMatch(/missing scope org\.write/);
  });
});
