import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsAfter, head, mutate, noop, ok, refused } from '../../helpers/calls.js';
import { newTask } from '../../helpers/tasks.js';
import { registrationAgo, presenceAgo, rtOrg, type RtOrg } from './kit.js';

/** registry.register and heartbeat, presence.beat, and GET /org/agents (scenario 1 of the runtime's acceptance). */

let o: RtOrg;
beforeAll(async () => {
  o = await rtOrg();
});
afterAll(() => o.s.close());

const register = async (instance: string, key = o.agent.key, extra: Record<string, unknown> = {}) =>
  (await ok(o.s, 'registry.register', { instance, name: 'books-agent', version: '1.0.0', ttlSeconds: 60, ...extra }, key)).registration;
const agents = async (query: Record<string, string | number> = {}, key?: string) => {
  const res = await o.s.client.get('org/agents', query, { key });
  expect(res.status, res.raw).toBe(200);
  return res.body;
};

describe('registry.register', () => {
  it('registers an instance passing; the same again: changed:false; a new version updates it; events carry counts, not names', async () => {
    const { result, event } = await mutate(
      o.s,
      'registry.register',
      { instance: 'reg-a', name: 'books-agent', version: '1.0.0', capabilities: ['books.billCreate', 'books.billCreate', 'board.claim'], ttlSeconds: 30 },
      'registry.agent.register',
      { key: o.agent.key, entityId: (r) => r.registration.id },
    );
    expect(result.registration).toMatchObject({
      principalId: o.agent.id,
      status: 'passing',
      lapsed: false,
      capabilities: ['books.billCreate', 'board.claim'],
      ttlSeconds: 30,
    });
    expect(Date.parse(result.registration.expiresAt) - Date.parse(result.registration.lastBeatAt)).toBe(30_000);
    expect(event.payload).toEqual({ registrationId: result.registration.id, capabilities: 2, ttlSeconds: 30, created: true, changed: true });
    await noop(
      o.s,
      'registry.register',
      { instance: 'reg-a', name: 'books-agent', version: '1.0.0', capabilities: ['books.billCreate', 'board.claim'], ttlSeconds: 30 },
      'registry.agent.register',
      o.agent.key,
    );
    const v2 = await register('reg-a', o.agent.key, { version: '1.1.0', ttlSeconds: 30 });
    expect(v2).toMatchObject({ id: result.registration.id, version: '1.1.0' });
  });

  it('misuse: TTL out of range, too many capabilities, an unknown field name the field; a viewer lacks registry.write', async () => {
    await refused(o.s, 'registry.register', { instance: 'x', name: 'n', version: '1', ttlSeconds: 5 }, 'BAD_REQUEST', {
      key: o.agent.key,
      message: /^ttlSeconds: must be at least 15/,
    });
    await refused(o.s, 'registry.register', { instance: 'x', name: 'n', version: '1', ttlSeconds: 3601 }, 'BAD_REQUEST', {
      key: o.agent.key,
      message: /^ttlSeconds: /,
    });
    const many = Array.from({ length: 51 }, (_, i) => `cap${i}`);
    await refused(o.s, 'registry.register', { instance: 'x', name: 'n', version: '1', capabilities: many }, 'BAD_REQUEST', {
      key: o.agent.key,
      message: /^capabilities: /,
    });
    await refused(o.s, 'registry.register', { instance: 'x', name: 'n', version: '1', colour: 'red' }, 'BAD_REQUEST', { key: o.agent.key, message: /colour/ });
    await refused(o.s, 'registry.register', { instance: 'x', name: 'n', version: '1' }, 'FORBIDDEN_SCOPE', {
      key: o.viewer.key,
      message: /^missing scope registry.write/,
    });
  });
});

describe('registry.heartbeat', () => {
  it('beats within max(5 s, ttl/10) are RATE_LIMITED with no event; later beats record status and fromStatus; notes stay out of events', async () => {
    const reg = await register('beat-a');
    const before = await head(o.s);
    const res = await o.s.client.rpc('registry.heartbeat', { registrationId: reg.id, status: 'warning' }, { key: o.agent.key });
    expect(res.body.error).toMatchObject({ code: 'RATE_LIMITED' });
    expect(res.body.error.message).toMatch(/beat at most every 6 s \(nothing was recorded\): retry in \d+ seconds/);
    expect(await head(o.s)).toBe(before);
    await registrationAgo(o, reg.id, 10);
    const { result, event } = await mutate(
      o.s,
      'registry.heartbeat',
      { registrationId: reg.id, status: 'warning', note: 'disk 91% full' },
      'registry.agent.heartbeat',
      {
        key: o.agent.key,
        entityId: () => reg.id,
      },
    );
    expect(result.registration).toMatchObject({ status: 'warning', note: 'disk 91% full' });
    expect(result.nextBeatInSeconds).toBe(30);
    expect(event.payload).toEqual({ registrationId: reg.id, status: 'warning', fromStatus: 'passing', leasesReleased: 0 });
    expect(JSON.stringify(event)).not.toContain('disk');
  });

  it("another's registration: CONFLICT; unknown or other org's: NOT_FOUND; a bad status names the field", async () => {
    const reg = await register('beat-b');
    await registrationAgo(o, reg.id, 10);
    await refused(o.s, 'registry.heartbeat', { registrationId: reg.id }, 'CONFLICT', {
      key: o.agent2.key,
      message: new RegExp(`belongs to ${o.agent.id}: beat only your own`),
    });
    await refused(o.s, 'registry.heartbeat', { registrationId: 'reg_nosuch' }, 'NOT_FOUND', { key: o.agent.key });
    await refused(o.other, 'registry.heartbeat', { registrationId: reg.id }, 'NOT_FOUND');
    await refused(o.s, 'registry.heartbeat', { registrationId: reg.id, status: 'asleep' }, 'BAD_REQUEST', { key: o.agent.key, message: /^status: / });
    await refused(o.s, 'registry.heartbeat', { registrationId: reg.id }, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
  });
});

describe('scenario 1: register, beat, go silent', () => {
  it('/org/agents passing -> critical when the TTL lapses; a beat revives; 72 h critical is stopped; stopped frees leases; events = calls', async () => {
    const start = await head(o.s);
    const reg = await register('silent-1', o.agent2.key);
    let view = await agents({}, o.viewer.key);
    expect(view.registrations.find((r: any) => r.id === reg.id)).toMatchObject({ status: 'passing' });
    expect(view.presence.find((p: any) => p.principalId === o.agent2.id)).toMatchObject({ status: 'available', source: 'registration' });

    await registrationAgo(o, reg.id, 61); // silent past its 60 s TTL, on the database's clock
    view = await agents({ status: 'critical' });
    const critical = view.registrations.find((r: any) => r.id === reg.id);
    expect(critical).toMatchObject({ status: 'critical', reportedStatus: 'passing', lapsed: true });
    expect(critical.criticalSince).toBe(critical.expiresAt);
    expect(view.presence.find((p: any) => p.principalId === o.agent2.id)).toMatchObject({ status: 'offline' });
    expect(view.counts.critical).toBeGreaterThanOrEqual(1);

    const revived = await ok(o.s, 'registry.heartbeat', { registrationId: reg.id }, o.agent2.key);
    expect(revived.registration).toMatchObject({ status: 'passing', lapsed: false, criticalSince: null });

    const lease = (await ok(o.s, 'lease.claim', { name: 'silent-job', ttlSeconds: 600, registrationId: reg.id }, o.agent2.key)).lease;
    await registrationAgo(o, reg.id, 10);
    const stopped = await mutate(o.s, 'registry.heartbeat', { registrationId: reg.id, status: 'stopped' }, 'registry.agent.heartbeat', { key: o.agent2.key });
    expect(stopped.result).toMatchObject({ registration: { status: 'stopped' }, leasesReleased: 1 });
    expect((await ok(o.s, 'lease.release', { leaseId: lease.id }, o.agent2.key)).lease.status).toBe('released');
    await refused(o.s, 'registry.heartbeat', { registrationId: reg.id }, 'CONFLICT', { key: o.agent2.key, message: /is stopped: register the instance again/ });

    // A registration critical for 72 hours counts as stopped; registering again revives it.
    const old = await register('silent-2', o.agent2.key);
    await registrationAgo(o, old.id, 73 * 3600);
    expect((await agents({ status: 'stopped' })).registrations.map((r: any) => r.id)).toContain(old.id);
    expect((await register('silent-2', o.agent2.key)).status).toBe('passing');

    const kinds = (await eventsAfter(o.s, start)).map((e) => e.kind);
    expect(kinds).toEqual([
      'registry.agent.register',
      'registry.agent.heartbeat',
      'lease.lock.claim',
      'registry.agent.heartbeat',
      'lease.lock.release',
      'registry.agent.register',
      'registry.agent.register',
    ]);
  });
});

describe('presence.beat', () => {
  it('sets the caller’s presence until it expires; within 10 s: RATE_LIMITED, no event; the text stays out of events; expiry -> offline', async () => {
    const taskId = (await newTask(o.s)).id as string;
    const { result, event } = await mutate(
      o.s,
      'presence.beat',
      { status: 'busy', taskId, statusText: 'Reconciling October', ttlSeconds: 120 },
      'presence.status.beat',
      { key: o.mia.key, entityId: () => o.mia.id },
    );
    expect(result).toMatchObject({ presence: { principalId: o.mia.id, status: 'busy', source: 'beat', statusText: 'Reconciling October' }, changed: true });
    expect(event.payload).toEqual({ status: 'busy', taskId, expiresAt: result.presence.expiresAt, changed: true });
    expect(JSON.stringify(event)).not.toContain('Reconciling');
    await refused(o.s, 'presence.beat', { status: 'busy' }, 'RATE_LIMITED', { key: o.mia.key, message: /beat at most every 10 s/ });
    await presenceAgo(o, o.mia.id, 11);
    const again = await ok(o.s, 'presence.beat', { status: 'busy', taskId, statusText: 'Reconciling October', ttlSeconds: 120 }, o.mia.key);
    expect(again.changed).toBe(false);
    expect((await agents()).presence.find((p: any) => p.principalId === o.mia.id)).toMatchObject({ status: 'busy' });
    await presenceAgo(o, o.mia.id, 121);
    const view = await agents();
    expect(view.presence.find((p: any) => p.principalId === o.mia.id)).toBeUndefined(); // expired, no registration: not listed
  });

  it('misuse: taskId names a task of this org (unknown or another org’s: NOT_FOUND taskId, nothing recorded)', async () => {
    const theirs = (await newTask(o.other)).id as string;
    for (const taskId of ['task_nosuch', theirs]) {
      await refused(o.s, 'presence.beat', { status: 'busy', taskId }, 'NOT_FOUND', {
        key: o.agent2.key,
        message: /^taskId: task \S+ not found in this organisation/,
      });
    }
    expect(await o.s.runtime.db.query('SELECT 1 FROM presence_beats WHERE org_id = $1 AND principal_id = $2', [o.s.org.orgId, o.agent2.id])).toEqual([]);
  });

  it('misuse: TTL and status name the field; a viewer lacks presence.write', async () => {
    await refused(o.s, 'presence.beat', { status: 'busy', ttlSeconds: 10 }, 'BAD_REQUEST', { key: o.max.key, message: /^ttlSeconds: must be at least 30/ });
    await refused(o.s, 'presence.beat', { status: 'asleep' }, 'BAD_REQUEST', { key: o.max.key, message: /^status: / });
    await refused(o.s, 'presence.beat', { status: 'busy', statusText: 'x'.repeat(101) }, 'BAD_REQUEST', { key: o.max.key, message: /^statusText: / });
    await refused(o.s, 'presence.beat', { status: 'busy' }, 'FORBIDDEN_SCOPE', { key: o.viewer.key, message: /^missing scope presence.write/ });
  });
});

describe('GET /events kinds and excludeKinds', () => {
  it('beats can be left out, or kept alone; kind and kinds together is BAD_REQUEST', async () => {
    const start = await head(o.s);
    const reg = await register('events-1', o.agent2.key);
    await registrationAgo(o, reg.id, 10);
    await ok(o.s, 'registry.heartbeat', { registrationId: reg.id }, o.agent2.key);
    await ok(o.s, 'lease.claim', { name: 'events-job', ttlSeconds: 60 }, o.agent2.key);
    const page = async (q: Record<string, string | number>) => (await o.s.client.get('events', { cursor: start, ...q })).body;
    expect((await page({ excludeKinds: 'registry.agent.heartbeat,presence.status.beat' })).events.map((e: any) => e.kind)).toEqual([
      'registry.agent.register',
      'lease.lock.claim',
    ]);
    expect((await page({ kinds: 'registry.agent.heartbeat,lease.lock.claim' })).events.map((e: any) => e.kind)).toEqual([
      'registry.agent.heartbeat',
      'lease.lock.claim',
    ]);
    const both = await o.s.client.get('events', { kind: 'lease.lock.claim', kinds: 'lease.lock.claim' });
    expect(both.status).toBe(400);
    expect(both.body.error.message).toBe('kinds: give kind or kinds, not both');
    const bad = await o.s.client.get('events', { excludeKinds: 'ok.kind,Not A Kind' });
    expect(bad.body.error.message).toMatch(/^excludeKinds\.1: must be an event kind/);
  });
});
