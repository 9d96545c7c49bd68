import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../gateway/app.js';
import type { Runtime } from '../../domain/deployed.js';
import { freshOrg, onPostgres, TestClient, testRuntime, type TestOrg } from '../helpers/harness.js';
import { openOrgStream, type OrgStream } from '../helpers/org-stream.js';
import { openEventStream, type EventStream } from '../helpers/sse.js';

/*
 * The kill switch reaches open streams at once (migration 045, domain/stream/access-watch.ts): revoking a key,
 * suspending (admin.deactivate), offboarding (user.deactivate) or SCIM active:false ends that principal's org
 * streams and approval-inbox streams within about a second, not at the next heartbeat (set to a minute here).
 * On PostgreSQL the streams are held by a second runtime (its own pool and LISTEN connection) and the act is done
 * through the first: every process hears it. On PGlite, one runtime holds both.
 */

const HEARTBEAT_MS = 60_000;
const WITHIN_MS = 1500;
const ORIGIN = 'http://localhost:8080'; // the default PUBLIC_URL's origin

interface Side {
  runtime: Runtime;
  app: FastifyInstance;
  base: string;
}

let acting: Side;
let holding: Side;
let o: TestOrg;
let admin: TestClient;

async function side(): Promise<Side> {
  const runtime = await testRuntime({ config: { streamPollMs: 200 } });
  const app = await buildApp({ runtime, logger: false, rateLimitPerMinute: 0, stream: { heartbeatMs: HEARTBEAT_MS }, inbox: { heartbeatMs: HEARTBEAT_MS } });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return { runtime, app, base };
}

beforeAll(async () => {
  acting = await side();
  holding = onPostgres ? await side() : acting;
  o = await freshOrg(acting.runtime);
  admin = new TestClient(acting.app, o.adminKey);
}, 60_000);

afterAll(async () => {
  for (const s of new Set([holding, acting])) {
    await s?.app.close();
    await s?.runtime.close();
  }
});

interface Held {
  id: string;
  keyId: string;
  key: string;
  org: OrgStream;
  inbox: EventStream;
}

/** A new human member with a key, an org stream and an approval-inbox stream open on the holding side. */
async function member(name: string): Promise<Held> {
  const minted = await admin.mint({ tier: 'approver' }, name);
  const org = await openOrgStream(holding.base, minted.apiKey);
  await org.until(() => org.comments.some((c) => c.startsWith('live after')), 'live');
  const res = await holding.app.inject({
    method: 'POST',
    url: '/approvals/api/session',
    headers: { 'content-type': 'application/json', origin: ORIGIN },
    payload: { apiKey: minted.apiKey },
  });
  expect(res.statusCode, res.body).toBe(200);
  const cookie = String(res.headers['set-cookie']).split(';')[0];
  const inbox = await openEventStream(`${holding.base}/approvals/api/stream`, cookie, name);
  await inbox.next('ready');
  return { id: minted.principal.id, keyId: minted.keyId, key: minted.apiKey, org, inbox };
}

/** Both streams end within WITHIN_MS of the act; returns the ms they took (the slower). */
async function endsAfter(h: Held, act: () => Promise<unknown>): Promise<number> {
  const start = Date.now();
  await act();
  const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), WITHIN_MS * 4).unref());
  const [org, inbox] = await Promise.all([Promise.race([h.org.ended, timeout]), Promise.race([h.inbox.ended, timeout])]);
  const ms = Date.now() - start;
  h.org.close();
  h.inbox.close();
  expect({ org, inbox }).toEqual({ org: undefined, inbox: undefined });
  expect(ms, 'both streams ended').toBeLessThan(WITHIN_MS);
  return ms;
}

describe('the kill switch ends open streams at once, in every process', () => {
  let bystander: Held;
  const took: Record<string, number> = {};

  beforeAll(async () => {
    bystander = await member('Bystander');
  });

  afterAll(() => {
    // Measured figures for the notes (PGlite: one runtime; PostgreSQL: across two).
    console.log(`kill switch (${onPostgres ? 'PostgreSQL, two runtimes' : 'PGlite, one runtime'}): ${JSON.stringify(took)} ms`);
  });

  it('key revocation (settings.revokeApiKey)', async () => {
    const h = await member('Revoked');
    took.revoke = await endsAfter(h, () => admin.ok('settings.revokeApiKey', { keyId: h.keyId }));
    expect(h.org.comments.at(-1)).toMatch(/^end: the key is no longer valid/);
    expect(h.inbox.events.at(-1)).toMatchObject({ event: 'end', data: { reason: expect.stringMatching(/^the session ended/) } });
  });

  it('suspension (admin.deactivate)', async () => {
    const h = await member('Suspended');
    took.suspend = await endsAfter(h, () => admin.ok('admin.deactivate', { memberId: h.id, reason: 'Kill switch test' }));
  });

  it('offboarding (user.deactivate)', async () => {
    const h = await member('Offboarded');
    const me = (await admin.get('org/whoami')).body.principal.id as string;
    took.offboard = await endsAfter(h, () => admin.ok('user.deactivate', { userId: h.id, transferTo: me, reason: 'Leaving' }));
  });

  it('SCIM active:false', async () => {
    const h = await member('Provisioned');
    const scim = await admin.mint({ tier: 'scim' }, 'IdP');
    took.scim = await endsAfter(h, async () => {
      const res = await acting.app.inject({
        method: 'PATCH',
        url: `/scim/v2/Users/${h.id}`,
        headers: { authorization: `Bearer ${scim.apiKey}`, 'content-type': 'application/scim+json' },
        payload: JSON.stringify({ schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', value: { active: false } }] }),
      });
      expect(res.statusCode, res.body).toBe(200);
    });
  });

  it("nobody else's stream ends, and it still receives events", async () => {
    const task = (await admin.ok('board.createTask', { title: 'still here' })).id;
    await bystander.org.until(() => bystander.org.frames.some((f) => f.data.entity_id === task), 'the new task');
    expect(bystander.inbox.events.some((e) => e.event === 'end')).toBe(false);
    bystander.org.close();
    bystander.inbox.close();
  });
});
