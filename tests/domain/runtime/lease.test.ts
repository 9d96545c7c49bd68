import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutate, noop, ok, refused } from '../../helpers/calls.js';
import { onPostgres } from '../../helpers/harness.js';
import { ENV_HELP, loadConfig } from '../../../cli/config.js';
import { rtOrg, type RtOrg } from './kit.js';

/*
 * lease.claim, heartbeat and release on the database's clock, and scenario 2 (PostgreSQL: 20 concurrent claims, one
 * holder; 100 lapse cycles, each raising the fencing token). The server here takes leases as short as 1 s
 * (leaseMinTtlSeconds, a setting), so lapses happen in real time.
 */

let o: RtOrg;
beforeAll(async () => {
  o = await rtOrg({ config: { leaseMinTtlSeconds: 1 } });
});
afterAll(() => o.s.close());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const claim = (name: string, key: string, extra: Record<string, unknown> = {}) => o.s.client.rpc('lease.claim', { name, ttlSeconds: 60, ...extra }, { key });

describe('lease.claim', () => {
  it('a free name: token 1; the same holder and instance again: the same lease, changed:false; another: CONFLICT naming holder and expiry', async () => {
    const { result, event } = await mutate(o.s, 'lease.claim', { name: 'books:pay-run', ttlSeconds: 60, holderInstance: 'w1' }, 'lease.lock.claim', {
      key: o.agent.key,
      entityId: (r) => r.lease.id,
    });
    expect(result).toMatchObject({
      lease: { name: 'books:pay-run', holderId: o.agent.id, holderInstance: 'w1', fencingToken: 1, status: 'held' },
      previousHolder: null,
      changed: true,
    });
    expect(event.payload).toEqual({ leaseId: result.lease.id, name: 'books:pay-run', fencingToken: 1, previousHolder: null, changed: true });
    const again = await noop(o.s, 'lease.claim', { name: 'books:pay-run', ttlSeconds: 60, holderInstance: 'w1' }, 'lease.lock.claim', o.agent.key);
    expect(again.lease).toMatchObject({ id: result.lease.id, fencingToken: 1 });
    const message = await refused(o.s, 'lease.claim', { name: 'books:pay-run', ttlSeconds: 60, holderInstance: 'w2' }, 'CONFLICT', { key: o.agent.key });
    expect(message).toBe(
      `lease "books:pay-run" is held by ${o.agent.id} (instance w1` +
        `) until ${result.lease.expiresAt} with fencing token 1: claim again after it lapses or its holder releases it (lease.release)`,
    );
    await refused(o.s, 'lease.claim', { name: 'books:pay-run', ttlSeconds: 60 }, 'CONFLICT', {
      key: o.agent2.key,
      message: new RegExp(`held by ${o.agent.id}`),
    });
  });

  it('misuse: TTL under the server floor or over a day, an empty name, an unknown or other’s registration, a viewer', async () => {
    await refused(o.s, 'lease.claim', { name: 'x', ttlSeconds: 0 }, 'BAD_REQUEST', { key: o.agent.key, message: /^ttlSeconds: must be at least 1/ });
    await refused(o.s, 'lease.claim', { name: 'x', ttlSeconds: 86401 }, 'BAD_REQUEST', { key: o.agent.key, message: /^ttlSeconds: must be at most 86400/ });
    await refused(o.s, 'lease.claim', { name: '', ttlSeconds: 10 }, 'BAD_REQUEST', { key: o.agent.key, message: /^name: / });
    await refused(o.s, 'lease.claim', { name: 'x', ttlSeconds: 10, registrationId: 'reg_nosuch' }, 'NOT_FOUND', { key: o.agent.key });
    const reg = (await ok(o.s, 'registry.register', { instance: 'lease-reg', name: 'n', version: '1' }, o.agent2.key)).registration;
    await refused(o.s, 'lease.claim', { name: 'x', ttlSeconds: 10, registrationId: reg.id }, 'NOT_FOUND', { key: o.agent.key });
    await refused(o.s, 'lease.claim', { name: 'x', ttlSeconds: 10 }, 'FORBIDDEN_SCOPE', { key: o.viewer.key, message: /^missing scope lease.write/ });
  });

  it('the floor is a setting: a server with the default refuses 5 s, naming it', async () => {
    const strict = await rtOrg();
    try {
      await refused(strict.s, 'lease.claim', { name: 'x', ttlSeconds: 5 }, 'BAD_REQUEST', {
        key: strict.agent.key,
        message: 'ttlSeconds: must be at least 10',
      });
    } finally {
      await strict.s.close();
    }
  });
});

describe('LEASE_MIN_TTL_SECONDS', () => {
  it('sets the floor; unset: 10; below 1, above a day or not a number: refused naming it; documented', () => {
    expect(loadConfig({ LEASE_MIN_TTL_SECONDS: '2' }).runtime).toEqual({ leaseMinTtlSeconds: 2 });
    expect(loadConfig({}).runtime).toEqual({ leaseMinTtlSeconds: 10 });
    expect(() => loadConfig({ LEASE_MIN_TTL_SECONDS: '0' })).toThrow(/^LEASE_MIN_TTL_SECONDS: must be an integer >= 1, got "0"/);
    expect(() => loadConfig({ LEASE_MIN_TTL_SECONDS: '86401' })).toThrow(/^LEASE_MIN_TTL_SECONDS: must be at most 86400/);
    expect(() => loadConfig({ LEASE_MIN_TTL_SECONDS: 'short' })).toThrow(/^LEASE_MIN_TTL_SECONDS: /);
    expect(ENV_HELP).toMatch(/^ {2}LEASE_MIN_TTL_SECONDS /m);
  });
});

describe('lease.heartbeat and release', () => {
  it('the holder renews; another: CONFLICT; lapsed: CONFLICT claim again; release twice: changed:false; force needs admin', async () => {
    const lease = (await ok(o.s, 'lease.claim', { name: 'hb', ttlSeconds: 60 }, o.agent.key)).lease;
    const renewed = await mutate(o.s, 'lease.heartbeat', { leaseId: lease.id, ttlSeconds: 120 }, 'lease.lock.heartbeat', {
      key: o.agent.key,
      entityId: () => lease.id,
    });
    expect(renewed.result.lease).toMatchObject({ ttlSeconds: 120, fencingToken: 1 });
    expect(Date.parse(renewed.result.lease.expiresAt)).toBeGreaterThan(Date.parse(lease.expiresAt));
    await refused(o.s, 'lease.heartbeat', { leaseId: lease.id }, 'CONFLICT', { key: o.agent2.key, message: /renew only your own/ });
    await refused(o.s, 'lease.heartbeat', { leaseId: 'lse_nosuch' }, 'NOT_FOUND', { key: o.agent.key });
    await refused(o.other, 'lease.heartbeat', { leaseId: lease.id }, 'NOT_FOUND');
    await refused(o.s, 'lease.release', { leaseId: lease.id }, 'CONFLICT', {
      key: o.agent2.key,
      message: /release only your own, or as an admin with force: true/,
    });
    await refused(o.s, 'lease.release', { leaseId: lease.id, force: true }, 'FORBIDDEN_SCOPE', {
      key: o.agent2.key,
      message: /^missing scope admin for lease.release/,
    });
    const forced = await mutate(o.s, 'lease.release', { leaseId: lease.id, force: true }, 'lease.lock.release', {});
    expect(forced.event.payload).toEqual({ leaseId: lease.id, fencingToken: 1, forced: true, changed: true });
    await noop(o.s, 'lease.release', { leaseId: lease.id }, 'lease.lock.release', o.agent.key);
    await refused(o.s, 'lease.heartbeat', { leaseId: lease.id }, 'CONFLICT', {
      key: o.agent.key,
      message: /was released at .*: claim again \(lease.claim\); the token changes/,
    });

    const short = (await ok(o.s, 'lease.claim', { name: 'hb-short', ttlSeconds: 1 }, o.agent.key)).lease;
    await sleep(1100);
    await refused(o.s, 'lease.heartbeat', { leaseId: short.id }, 'CONFLICT', {
      key: o.agent.key,
      message: /lapsed at .*: claim again \(lease.claim\); the token changes/,
    });
    const next = await ok(o.s, 'lease.claim', { name: 'hb-short', ttlSeconds: 60 }, o.agent2.key);
    expect(next).toMatchObject({ lease: { fencingToken: 2 }, previousHolder: o.agent.id });
    expect((await ok(o.s, 'lease.release', { leaseId: short.id }, o.agent.key)).changed).toBe(false);
    const listed = await o.s.client.get('org/leases', { prefix: 'hb', all: 'true' });
    expect(listed.body.leases.map((l: any) => [l.name, l.fencingToken, l.status])).toEqual(
      expect.arrayContaining([
        ['hb', 1, 'released'],
        ['hb-short', 1, 'lapsed'],
        ['hb-short', 2, 'held'],
      ]),
    );
    expect((await o.s.client.get('org/leases', { prefix: 'hb' })).body.leases.map((l: any) => l.name)).toEqual(['hb-short']);
  });
});

describe('a lease under a registration that stops by itself', () => {
  it('critical for 72 hours: its leases read lapsed, another claims the next token, the old holder’s renewal says why', async () => {
    const reg = (await ok(o.s, 'registry.register', { instance: 'stops-alone', name: 'n', version: '1' }, o.agent.key)).registration;
    const held = (await ok(o.s, 'lease.claim', { name: 'books:close', ttlSeconds: 3600, registrationId: reg.id }, o.agent.key)).lease;
    expect(held).toMatchObject({ status: 'held', fencingToken: 1 });
    // Critical since 73 hours ago (the registration's row, as a beat of "critical" three days back would leave it).
    await o.s.runtime.db.query(`UPDATE agent_registrations SET critical_since = now() - interval '73 hours' WHERE org_id = $1 AND registration_id = $2`, [
      o.s.org.orgId,
      reg.id,
    ]);
    const agents = (await o.s.client.get('org/agents', {}, { key: o.agent.key })).body;
    expect(JSON.stringify(agents)).toContain(reg.id);
    const listed = (await o.s.client.get('org/leases', { prefix: 'books:close' })).body.leases;
    expect(listed).toEqual([]);
    const message = await refused(o.s, 'lease.heartbeat', { leaseId: held.id }, 'CONFLICT', { key: o.agent.key });
    expect(message).toBe(
      `lease ${held.id} ("books:close") lapsed with its registration ${reg.id}, which is stopped (it beat stopped or stayed critical for 72 hours):` +
        ` register again (registry.register) and claim under the new one; the token changes`,
    );
    const taken = await ok(o.s, 'lease.claim', { name: 'books:close', ttlSeconds: 60 }, o.agent2.key);
    expect(taken).toMatchObject({ lease: { holderId: o.agent2.id, fencingToken: 2, status: 'held' }, previousHolder: o.agent.id, changed: true });
  });
});

describe.skipIf(!onPostgres)('scenario 2 on PostgreSQL (skipped on PGlite, which has one connection)', () => {
  it('20 concurrent claims: exactly one lease, 19 CONFLICT naming the holder', async () => {
    const keys = [o.agent.key, o.agent2.key, o.mia.key, o.max.key];
    const ids = [o.agent.id, o.agent2.id, o.mia.id, o.max.id];
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => claim('race', keys[i % 4], { holderInstance: `i${i}` })));
    const won = answers.filter((a) => a.body.ok);
    expect(won).toHaveLength(1);
    const holder = won[0].body.result.lease.holderId;
    expect(ids).toContain(holder);
    const lost = answers.filter((a) => !a.body.ok);
    expect(lost.map((a) => a.body.error.code)).toEqual(Array(19).fill('CONFLICT'));
    for (const a of lost) expect(a.body.error.message).toContain(`held by ${holder}`);
    const rows = await o.s.runtime.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM leases WHERE org_id = $1 AND name = 'race'`, [o.s.org.orgId]);
    expect(rows[0]?.n).toBe(1);
  });

  it(
    '100 lapse cycles with a 1 s TTL: each new holder gets the next token; a stale heartbeat is CONFLICT; a second release changed:false',
    { timeout: 120_000 },
    async () => {
      const keys = [o.agent.key, o.agent2.key];
      let previous: any;
      for (let i = 1; i <= 100; i++) {
        const res = await claim('cycle', keys[i % 2], { ttlSeconds: 1 });
        expect(res.body.ok, res.raw).toBe(true);
        expect(res.body.result.lease.fencingToken).toBe(i);
        if (previous) expect(res.body.result.previousHolder).toBe(previous.holderId);
        previous = res.body.result.lease;
        await sleep(Math.max(0, Date.parse(previous.expiresAt) - Date.now()) + 30);
      }
      const stale = await o.s.client.rpc('lease.heartbeat', { leaseId: previous.id }, { key: keys[0] });
      expect(stale.body.error).toMatchObject({ code: 'CONFLICT' });
      expect(stale.body.error.message).toMatch(/claim again \(lease.claim\); the token changes/);
      const first = await o.s.client.rpc('lease.release', { leaseId: previous.id }, { key: keys[0] });
      expect(first.body.result.changed).toBe(false);
    },
  );
});
