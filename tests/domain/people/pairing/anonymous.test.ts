import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../../gateway/app.js';
import { DEFAULT_PAIRING_LIMITS, type PairingLimits } from '../../../../domain/people/pairing/index.js';
import { decoyExpiry, decoyPairingId, decoyPollSecret } from '../../../../domain/people/pairing/decoy.js';
import { addressBucket } from '../../../../domain/people/pairing/limits.js';
import { freshOrg, onPostgres, TestClient, testRuntime, testServer, type TestServer } from '../../../helpers/harness.js';
import type { Runtime } from '../../../../domain/deployed.js';
import { one } from '../../../../db/types.js';

/*
 * Defect 3: what an anonymous caller can cost an org through pairing.request. Pending pairings per org are
 * capped, polls append nothing until something changes, calls are limited per address and per org slug in
 * the database (so across processes), and a slug no org has answers exactly like one an org has.
 */

let s: TestServer;
beforeAll(async () => {
  s = await testServer();
});
afterAll(() => s.close());

/** This test's limits (the handler reads them per call). */
const limits = (l: Partial<PairingLimits>) => {
  s.runtime.deps.config.pairing = { ...DEFAULT_PAIRING_LIMITS, ...l };
};
/** An address no other test (or test file sharing a PostgreSQL database) uses. */
const address = () => `10.${randomBytes(3).join('.')}`;
const unknownSlug = () => `nobody-${randomBytes(6).toString('hex')}`;

interface Answer {
  status: number;
  body: any;
  headers: Record<string, unknown>;
  ms: number;
}

async function anonymous(params: unknown, from: string, app: FastifyInstance = s.app): Promise<Answer> {
  const started = performance.now();
  const res = await app.inject({ method: 'POST', url: '/api/v1/pairing.request', payload: { params }, remoteAddress: from });
  return { status: res.statusCode, body: res.json(), headers: res.headers, ms: performance.now() - started };
}

const eventCount = async (orgId?: string) =>
  Number(one(await s.runtime.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM events ${orgId ? 'WHERE org_id = $1' : ''}`, orgId ? [orgId] : [])).n);
const pairingKinds = async (orgId: string) =>
  (await s.runtime.db.query<{ kind: string }>(`SELECT kind FROM events WHERE org_id = $1 AND family = 'pairing' ORDER BY seq`, [orgId])).map((r) => r.kind);

describe('polls append nothing until the pairing changes', () => {
  it('25 polls of a pending pairing append no event and write nothing; approval and claim append one each', async () => {
    limits({ perAddressPerMinute: 0, answerFloorMs: 0 });
    const org = await freshOrg(s.runtime, 'poll');
    const from = address();
    const first = (await anonymous({ orgSlug: org.slug, agentName: 'poller' }, from)).body.result;
    const before = await eventCount(org.orgId);
    const [row] = await s.runtime.db.query('SELECT * FROM pairings WHERE org_id = $1', [org.orgId]);
    for (let i = 0; i < 25; i++) {
      const polled = await anonymous({ orgSlug: org.slug, pairingId: first.pairingId, pollSecret: first.pollSecret }, from);
      expect(polled.body.result.status).toBe('pending');
    }
    expect(await eventCount(org.orgId)).toBe(before);
    expect(await s.runtime.db.query('SELECT * FROM pairings WHERE org_id = $1', [org.orgId])).toEqual([row]);

    const admin = new TestClient(s.app, org.adminKey);
    await admin.ok('pairing.approve', { pairingId: first.pairingId, code: first.code });
    const claimed = await anonymous({ orgSlug: org.slug, pairingId: first.pairingId, pollSecret: first.pollSecret }, from);
    expect(claimed.body.result.status).toBe('claimed');
    expect(await pairingKinds(org.orgId)).toEqual(['pairing.request.create', 'pairing.request.approve', 'pairing.request.claim']);
  });
});

describe('what 200 anonymous requests can cost one org', () => {
  it('with only the pending cap (5): 200 concurrent first calls add 5 events; the rest are RATE_LIMITED with Retry-After', async () => {
    limits({ pendingMax: 5, perOrgPerHour: 0, perAddressPerMinute: 0, answerFloorMs: 0 });
    const org = await freshOrg(s.runtime, 'cap');
    const before = await eventCount(org.orgId);
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => anonymous({ orgSlug: org.slug, agentName: `bot ${i}` }, address())));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    const refused = answers.filter((a) => a.status !== 200);
    expect(refused).toHaveLength(195);
    for (const a of refused) {
      expect(a.status).toBe(429);
      expect(a.body.error.code).toBe('RATE_LIMITED');
      expect(a.body.error.message).toMatch(new RegExp(`^rate limited: org ${org.slug} already has 5 pairings waiting for an admin; retry in \\d+ seconds`));
      const retry = Number(a.headers['retry-after']);
      expect(retry > 3000 && retry <= 3600, String(retry)).toBe(true);
    }
    expect((await eventCount(org.orgId)) - before).toBe(5);
    const { n } = one(await s.runtime.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pairings WHERE org_id = $1`, [org.orgId]));
    expect(n).toBe(5);
  });

  it('with the default limits, 200 first calls from one address add 10 events (the hourly limit per org, under the cap)', async () => {
    limits({ answerFloorMs: 0 });
    const org = await freshOrg(s.runtime, 'dflt');
    const from = address();
    const before = await eventCount(org.orgId);
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => anonymous({ orgSlug: org.slug, agentName: `bot ${i}` }, from)));
    const ok = answers.filter((a) => a.status === 200).length;
    expect(ok).toBe(DEFAULT_PAIRING_LIMITS.perOrgPerHour);
    expect(ok).toBeLessThanOrEqual(DEFAULT_PAIRING_LIMITS.pendingMax);
    expect((await eventCount(org.orgId)) - before).toBe(ok);
    const messages = new Set(answers.filter((a) => a.status === 429).map((a) => a.body.error.message.replace(/\d+ seconds/, 'N seconds')));
    // Both limits refused some: the address's (30 a minute) and the org's (10 an hour).
    expect([...messages].sort()).toEqual([
      `rate limited: at most 10 new pairings an hour for org ${org.slug}; retry in N seconds`,
      'rate limited: at most 30 pairing.request calls a minute from one address; retry in N seconds',
    ]);
  });

  it('the per-address limit counts calls that fail too (wrong poll secrets)', async () => {
    limits({ perAddressPerMinute: 3, answerFloorMs: 0 });
    const from = address();
    for (let i = 0; i < 3; i++) {
      expect((await anonymous({ orgSlug: s.org.slug, pairingId: 'pair_0123456789abcdef', pollSecret: `pps_${i}` }, from)).status).toBe(404);
    }
    const fourth = await anonymous({ orgSlug: s.org.slug, pairingId: 'pair_0123456789abcdef', pollSecret: 'pps_x' }, from);
    expect(fourth.status).toBe(429);
    expect(fourth.body.error.message).toMatch(/^rate limited: at most 3 pairing\.request calls a minute from one address; retry in \d+ seconds$/);
    expect((await anonymous({ orgSlug: s.org.slug, pairingId: 'pair_0123456789abcdef', pollSecret: 'pps_x' }, address())).status).toBe(404);
  });

  it('IPv6 addresses are limited by their /64', async () => {
    limits({ perAddressPerMinute: 2, answerFloorMs: 0 });
    const prefix = `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;
    const poll = (from: string) => anonymous({ orgSlug: s.org.slug, pairingId: 'pair_0123456789abcdef', pollSecret: 'pps_x' }, from);
    expect((await poll(`${prefix}::1`)).status).toBe(404);
    expect((await poll(`${prefix}:0:0:0:2`)).status).toBe(404);
    expect((await poll(`${prefix}:ffff:1:2:3`)).status).toBe(429);
  });
});

describe('limits hold across server processes (they are counted in the database)', () => {
  let other: Runtime | undefined;
  let app2: FastifyInstance;
  beforeAll(async () => {
    // On PostgreSQL a second runtime is a second pool, as another process would have; PGlite has one process.
    other = onPostgres ? await testRuntime() : undefined;
    app2 = await buildApp({ runtime: other ?? s.runtime, logger: false, rateLimitPerMinute: 0 });
  });
  afterAll(async () => {
    await app2.close();
    await other?.close();
  });

  it('3 calls through one server and 3 through another from one address: the 6th is refused at the limit of 5', async () => {
    limits({ perAddressPerMinute: 5, answerFloorMs: 0 });
    if (other) other.deps.config.pairing = s.runtime.deps.config.pairing;
    const from = address();
    const org = await freshOrg(s.runtime, 'procs');
    const statuses: number[] = [];
    for (const app of [s.app, s.app, s.app, app2, app2, app2]) {
      statuses.push((await anonymous({ orgSlug: org.slug, agentName: 'x' }, from, app)).status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });
});

describe('behind a load balancer (TRUST_PROXY)', () => {
  const viaProxy = async (app: FastifyInstance, proxy: string, client: string, orgSlug: string) =>
    (
      await app.inject({
        method: 'POST',
        url: '/api/v1/pairing.request',
        payload: { params: { orgSlug, agentName: 'lb' } },
        remoteAddress: proxy,
        headers: { 'x-forwarded-for': client },
      })
    ).statusCode;

  it("a trusted proxy's X-Forwarded-For names the caller; an untrusted one's is ignored", async () => {
    limits({ perAddressPerMinute: 2, answerFloorMs: 0 });
    const org = await freshOrg(s.runtime, 'proxy');
    const proxy = address();
    const trusting = await buildApp({ runtime: s.runtime, logger: false, rateLimitPerMinute: 0, trustProxy: [proxy] });
    try {
      // Two clients behind the trusted proxy each get their own limit of 2.
      const [a, b] = [address(), address()];
      const trusted = [];
      for (const client of [a, a, b, b, a]) trusted.push(await viaProxy(trusting, proxy, client, org.slug));
      expect(trusted).toEqual([200, 200, 200, 200, 429]);
      // Without trust, a client cannot escape its limit by naming other addresses: they all count as the socket's.
      const socket = address();
      const spoofed = [];
      for (let i = 0; i < 3; i++) spoofed.push(await viaProxy(s.app, socket, address(), org.slug));
      expect(spoofed).toEqual([200, 200, 429]);
    } finally {
      await trusting.close();
    }
  });
});

describe('unknown slugs answer exactly like known ones', () => {
  const shape = (result: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(result).map(([k, v]) => [k, typeof v === 'string' ? v.replace(/[0-9A-Za-z]/g, 'x') : v]));

  it('first calls: same status, fields, formats and words; nothing about the unknown slug is stored or ledgered', async () => {
    limits({ perAddressPerMinute: 0, answerFloorMs: 0 });
    const org = await freshOrg(s.runtime, 'known');
    const nobody = unknownSlug();
    // Counted in the known org (other test files share the database and append meanwhile); the unknown slug is
    // looked for in every event and every pairing.
    const events = await eventCount(org.orgId);
    const { n: pairings } = one(await s.runtime.db.query<{ n: number }>('SELECT count(*)::int AS n FROM pairings WHERE org_id = $1', [org.orgId]));
    const known = await anonymous({ orgSlug: org.slug, agentName: 'same bot' }, address());
    const unknown = await anonymous({ orgSlug: nobody, agentName: 'same bot' }, address());
    expect(unknown.status).toBe(known.status);
    expect(unknown.headers['content-type']).toBe(known.headers['content-type']);
    const [k, u] = [known.body.result, unknown.body.result];
    expect(Object.keys(u)).toEqual(Object.keys(k));
    for (const r of [k, u]) {
      expect(r.pairingId).toMatch(/^pair_[0-9a-z]{16}$/);
      expect(r.pollSecret).toMatch(/^pps_[0-9a-z]{40}$/);
      expect(r.code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
      expect(r.expiresAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Math.abs(Date.parse(r.expiresAt) - Date.now() - 3_600_000)).toBeLessThan(60_000);
    }
    const words = (r: any, slug: string) => r.message.replace(slug, 'SLUG').replace(r.pairingId, 'ID').replace(r.code, 'CODE');
    expect(words(u, nobody)).toBe(words(k, org.slug));
    expect(shape({ ...u, message: null })).toEqual(shape({ ...k, message: null }));

    // The known org's one event and row; nothing for the unknown slug anywhere.
    expect(await eventCount(org.orgId)).toBe(events + 1);
    const { n: after } = one(await s.runtime.db.query<{ n: number }>('SELECT count(*)::int AS n FROM pairings WHERE org_id = $1', [org.orgId]));
    expect(after).toBe(pairings + 1);
    const { n: mentions } = one(
      await s.runtime.db.query<{ n: number }>(
        `SELECT (SELECT count(*) FROM events WHERE payload::text LIKE '%' || $1 || '%' OR entity_id = $1)::int
            + (SELECT count(*) FROM pairings p WHERE row_to_json(p)::text LIKE '%' || $1 || '%')::int AS n`,
        [nobody],
      ),
    );
    expect(mentions).toBe(0);
    const dump = JSON.stringify(await s.runtime.db.query('SELECT * FROM pairing_limits'));
    expect(dump).not.toContain(nobody);
    expect(dump).not.toContain(org.slug);

    // Polls: pending for both, same words; a wrong secret is NOT_FOUND for both, same words.
    const pk = await anonymous({ orgSlug: org.slug, pairingId: k.pairingId, pollSecret: k.pollSecret }, address());
    const pu = await anonymous({ orgSlug: nobody, pairingId: u.pairingId, pollSecret: u.pollSecret }, address());
    expect([pk.status, pu.status]).toEqual([200, 200]);
    expect({ ...pu.body.result, pairingId: 'ID', expiresAt: 'AT' }).toEqual({ ...pk.body.result, pairingId: 'ID', expiresAt: 'AT' });
    expect(pu.body.result).toMatchObject({ status: 'pending', pairingId: u.pairingId, expiresAt: u.expiresAt });
    const wk = await anonymous({ orgSlug: org.slug, pairingId: k.pairingId, pollSecret: u.pollSecret }, address());
    const wu = await anonymous({ orgSlug: nobody, pairingId: u.pairingId, pollSecret: k.pollSecret }, address());
    expect([wk.status, wu.status]).toEqual([404, 404]);
    expect(wu.body.error.message.replace(u.pairingId, 'ID')).toBe(wk.body.error.message.replace(k.pairingId, 'ID'));
    // A decoy is bound to its slug: the same id and secret under another unknown slug are not found.
    expect((await anonymous({ orgSlug: unknownSlug(), pairingId: u.pairingId, pollSecret: u.pollSecret }, address())).status).toBe(404);
    expect(await eventCount(org.orgId)).toBe(events + 1);
  });

  it('expired: a real pairing nobody approved and a decoy past its expiry answer alike', async () => {
    limits({ perAddressPerMinute: 0, answerFloorMs: 0 });
    const org = await freshOrg(s.runtime, 'exp');
    const k = (await anonymous({ orgSlug: org.slug, agentName: 'late bot' }, address())).body.result;
    await s.runtime.db.query(`UPDATE pairings SET expires_at = now() - interval '1 second' WHERE org_id = $1`, [org.orgId]);
    const nobody = unknownSlug();
    const id = decoyPairingId(s.runtime.deps.signingKey, nobody, Date.now() - 1000);
    const pk = await anonymous({ orgSlug: org.slug, pairingId: k.pairingId, pollSecret: k.pollSecret }, address());
    const pu = await anonymous({ orgSlug: nobody, pairingId: id, pollSecret: decoyPollSecret(s.runtime.deps.signingKey, nobody, id) }, address());
    expect([pk.status, pu.status]).toEqual([200, 200]);
    expect(pk.body.result.status).toBe('expired');
    expect({ ...pu.body.result, pairingId: 'ID', expiresAt: 'AT' }).toEqual({ ...pk.body.result, pairingId: 'ID', expiresAt: 'AT' });
  });

  it('the per-org limit counts unknown slugs too, and refuses both in the same words', async () => {
    limits({ pendingMax: 0, perOrgPerHour: 3, perAddressPerMinute: 0, answerFloorMs: 0 });
    const org = await freshOrg(s.runtime, 'lim');
    const nobody = unknownSlug();
    const run = async (slug: string) => {
      const out: Answer[] = [];
      for (let i = 0; i < 4; i++) out.push(await anonymous({ orgSlug: slug, agentName: 'x' }, address()));
      return out;
    };
    const [known, unknown] = [await run(org.slug), await run(nobody)];
    expect(known.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(unknown.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    const words = (a: Answer, slug: string) => a.body.error.message.replace(slug, 'SLUG').replace(/\d+ seconds/, 'N seconds');
    expect(words(unknown[3], nobody)).toBe(words(known[3], org.slug));
    expect(unknown[3].headers['retry-after']).toBeDefined();
  });

  it('take the same time: every answer waits for the floor (100 ms by default)', async () => {
    limits({ pendingMax: 0, perOrgPerHour: 0, perAddressPerMinute: 0 });
    const org = await freshOrg(s.runtime, 'time');
    const nobody = unknownSlug();
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 10; i++) {
      known.push((await anonymous({ orgSlug: org.slug, agentName: 'x' }, address())).ms);
      unknown.push((await anonymous({ orgSlug: nobody, agentName: 'x' }, address())).ms);
    }
    const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
    console.log(`pairing.request first call, median of 10: known org ${median(known).toFixed(1)} ms, unknown slug ${median(unknown).toFixed(1)} ms`);
    for (const ms of [...known, ...unknown]) expect(ms).toBeGreaterThanOrEqual(DEFAULT_PAIRING_LIMITS.answerFloorMs - 1);
    expect(Math.abs(median(known) - median(unknown))).toBeLessThan(25);
  });
});

describe('decoy pairings and address buckets (units)', () => {
  const key = 'k'.repeat(64);

  it('a decoy id looks like a random one at every position, and only its own slug and secret decode it', () => {
    const ids = Array.from({ length: 2000 }, () => decoyPairingId(key, 'acme', Date.now() + 3_600_000));
    for (let i = 5; i < 21; i++) expect(new Set(ids.map((id) => id[i])).size, `position ${i}`).toBe(36);
    const at = 1_900_000_000_123;
    const id = decoyPairingId(key, 'acme', at);
    const secret = decoyPollSecret(key, 'acme', id);
    expect(secret).toMatch(/^pps_[0-9a-z]{40}$/);
    expect(decoyExpiry(key, 'acme', id, secret)).toBe(at);
    expect(decoyExpiry(key, 'acme2', id, secret)).toBeUndefined();
    expect(decoyExpiry('j'.repeat(64), 'acme', id, secret)).toBeUndefined();
    expect(decoyExpiry(key, 'acme', id, `${secret.slice(0, -1)}${secret.endsWith('0') ? '1' : '0'}`)).toBeUndefined();
  });

  it('IPv4-mapped addresses count as IPv4, IPv6 ones by their /64', () => {
    expect(addressBucket('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(addressBucket('192.0.2.7')).toBe('192.0.2.7');
    expect(addressBucket('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressBucket('2001:0DB8:0000:0001:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:0:1::/64');
    expect(addressBucket('::1')).toBe('0:0:0:0::/64');
  });
});
