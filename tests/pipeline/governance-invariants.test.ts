import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { method } from '../../protocol/contract.js';
import { METHODS } from '../../protocol/registry.js';
import { METHOD_HANDLERS } from '../../domain/deployed.js';
import { handler, type MethodHandler } from '../../domain/core/handler.js';
import { verifyOrgChain } from '../../ledger/verify.js';
import { freshOrg, TestClient, testServer, type TestServer } from '../helpers/harness.js';
import { expectError, expectFrame } from '../helpers/frames.js';
import { headOf } from '../helpers/ledger.js';

/**
 * Governance gating (spec: flag G) and the pipeline's own invariants, exercised with test-only handlers
 * (runtime extraHandlers) bound to registry names, so they run through the real pipeline and gateway.
 */
const NoteParams = z.strictObject({ note: z.string().max(100) });
const testContract = (summary: string) =>
  method({ summary, params: NoteParams, example: { note: 'n' }, events: ['handoff.offered', 'sop.one', 'sop.two', 'team.listed', 'team.created'] });

const extra = new Map<string, MethodHandler>([
  // handoff.offer is M,G: a well-behaved gated method.
  [
    'handoff.offer',
    handler(testContract('test: gated'), async (ctx, p) => {
      await ctx.emit('handoff.offered', 'ho_1', { note: p.note });
      return { offered: true };
    }),
  ],
  // team.delete is M: writes, then throws a plain Error.
  [
    'team.delete',
    handler(testContract('test: throws'), async (ctx) => {
      await ctx.q.query(`UPDATE api_keys SET name = 'should be rolled back' WHERE org_id = $1`, [ctx.orgId]);
      throw new Error('boom: an unexpected failure');
    }),
  ],
  // team.update is M: writes and forgets to emit.
  [
    'team.update',
    handler(testContract('test: no emit'), async (ctx) => {
      await ctx.q.query(`UPDATE api_keys SET name = 'should be rolled back' WHERE org_id = $1`, [ctx.orgId]);
      return { done: true };
    }),
  ],
  // sop.update is M: emits twice.
  [
    'sop.update',
    handler(testContract('test: two emits'), async (ctx) => {
      await ctx.emit('sop.one', '', {});
      await ctx.emit('sop.two', '', {});
      return {};
    }),
  ],
  // sop.delete is M: emits a kind its contract does not declare.
  [
    'sop.delete',
    handler(testContract('test: undeclared kind'), async (ctx) => {
      await ctx.q.query(`UPDATE api_keys SET name = 'should be rolled back' WHERE org_id = $1`, [ctx.orgId]);
      await ctx.emit('sop.record.delete', '', {});
      return {};
    }),
  ],
  // team.list is R: tries to emit.
  [
    'team.list',
    handler(testContract('test: read emits'), async (ctx) => {
      await ctx.emit('team.listed', '', {});
      return {};
    }),
  ],
  // team.create is M,I: succeeds, for the cache tests below.
  [
    'team.create',
    handler(testContract('test: idempotent create'), async (ctx, p) => {
      const e = await ctx.emitAndWait('team.created', 'team_1', { note: p.note });
      return { seq: e.seq, note: p.note };
    }),
  ],
]);

let s: TestServer;
beforeAll(async () => {
  s = await testServer({ extraHandlers: extra });
});
afterAll(() => s.close());

describe('governance-gated (G) methods', () => {
  it('refuse GOVERNANCE_NOT_READY (423) until governance.set_decision_rights, then run', async () => {
    const org = await freshOrg(s.runtime, 'gov');
    const client = new TestClient(s.app, org.adminKey);
    const refused = await client.rpc('handoff.offer', { note: 'first' });
    expect(refused.status).toBe(423);
    expectError(refused, 'GOVERNANCE_NOT_READY', /governance\.set_decision_rights/);
    expect((await headOf(s.runtime.db, org.orgId)).seq).toBe(0);
    // Params are checked before governance.
    expectError(await client.rpc('handoff.offer', { note: 1 }), 'BAD_REQUEST', 'note: expected string, got number');

    const status = await client.ok('governance.status', {});
    expect(status.declared).toBe(false);
    expect(status.gatedMethods).toContain('handoff.offer');
    await client.ok('governance.set_decision_rights', { rights: [{ area: 'handoff', decidedBy: 'humans' }] });
    expect((await client.get('org/whoami')).body.governanceReady).toBe(true);

    const ran = await client.rpc('handoff.offer', { note: 'second' });
    expect(expectFrame(ran).ok).toBe(true);
    expect((await headOf(s.runtime.db, org.orgId)).seq).toBe(2);
    // Another org is still gated.
    const other = await freshOrg(s.runtime, 'gov');
    expectError(await new TestClient(s.app, other.adminKey).rpc('handoff.offer', { note: 'x' }), 'GOVERNANCE_NOT_READY');
  });

  it('governance.set_decision_rights appends one event and replaces the declaration', async () => {
    const org = await freshOrg(s.runtime, 'gov');
    const client = new TestClient(s.app, org.adminKey);
    await client.ok('governance.set_decision_rights', { rights: [{ area: 'a', decidedBy: 'humans' }] });
    const second = await client.ok('governance.set_decision_rights', { rights: [{ area: 'b', decidedBy: 'usr_1', escalateTo: 'humans' }] });
    expect(second.rights).toEqual([{ area: 'b', decidedBy: 'usr_1', escalateTo: 'humans' }]);
    expect((await headOf(s.runtime.db, org.orgId)).seq).toBe(2);
  });

  // Those this file stands in for (extra) are the first test's; the rest run their deployed handlers.
  const deployedGated = [...METHOD_HANDLERS.keys()].filter((n) => METHODS.get(n)!.governed && !extra.has(n));
  it.skipIf(deployedGated.length === 0)(
    `every deployed G method refuses before rights are declared (${deployedGated.length ? deployedGated.join(', ') : 'SKIPPED: no G method is deployed yet'})`,
    async () => {
      const org = await freshOrg(s.runtime, 'gov');
      const client = new TestClient(s.app, org.adminKey);
      for (const name of deployedGated) {
        const res = await client.rpc(name, METHOD_HANDLERS.get(name)!.contract.example);
        expectError(res, 'GOVERNANCE_NOT_READY', undefined, name);
      }
      expect((await headOf(s.runtime.db, org.orgId)).seq).toBe(0);
    },
  );
});

describe('pipeline invariants', () => {
  async function namesOf(orgId: string) {
    return (await s.runtime.db.query<{ name: string }>('SELECT name FROM api_keys WHERE org_id = $1', [orgId])).map((r) => r.name);
  }

  it('a handler that throws is INTERNAL 500 without detail, and its writes roll back', async () => {
    const org = await freshOrg(s.runtime, 'inv');
    const client = new TestClient(s.app, org.adminKey);
    const names = await namesOf(org.orgId);
    const res = await client.rpc('team.delete', { note: 'x' });
    expect(res.status).toBe(500);
    const err = expectError(res, 'INTERNAL');
    expect(err.message).not.toContain('boom');
    expect(await namesOf(org.orgId)).toEqual(names);
    expect((await headOf(s.runtime.db, org.orgId)).seq).toBe(0);
  });

  it('an M handler that emits no event fails, and its writes roll back', async () => {
    const org = await freshOrg(s.runtime, 'inv');
    const names = await namesOf(org.orgId);
    expectError(await new TestClient(s.app, org.adminKey).rpc('team.update', { note: 'x' }), 'INTERNAL');
    expect(await namesOf(org.orgId)).toEqual(names);
  });

  it('an M handler that emits twice fails and appends nothing', async () => {
    const org = await freshOrg(s.runtime, 'inv');
    expectError(await new TestClient(s.app, org.adminKey).rpc('sop.update', { note: 'x' }), 'INTERNAL');
    expect((await headOf(s.runtime.db, org.orgId)).seq).toBe(0);
    expect((await verifyOrgChain(s.runtime.db, org.orgId)).ok).toBe(true);
  });

  it('an M handler that emits a kind its contract does not declare fails, and its writes roll back', async () => {
    const org = await freshOrg(s.runtime, 'inv');
    const names = await namesOf(org.orgId);
    expectError(await new TestClient(s.app, org.adminKey).rpc('sop.delete', { note: 'x' }), 'INTERNAL');
    expect(await namesOf(org.orgId)).toEqual(names);
    expect((await headOf(s.runtime.db, org.orgId)).seq).toBe(0);
  });

  it('an R handler may not emit', async () => {
    const org = await freshOrg(s.runtime, 'inv');
    expectError(await new TestClient(s.app, org.adminKey).rpc('team.list', { note: 'x' }), 'INTERNAL');
    expect((await headOf(s.runtime.db, org.orgId)).seq).toBe(0);
  });

  it('a failed idempotent first attempt is not cached: the retry with the same key runs', async () => {
    const org = await freshOrg(s.runtime, 'inv');
    const client = new TestClient(s.app, org.adminKey);
    expectError(await client.rpc('team.create', { note: 5 }, { idem: 'k1' }), 'BAD_REQUEST');
    const first = await client.rpc('team.create', { note: 'ok' }, { idem: 'k1' });
    expect(first.headers['idempotent-replay']).toBeUndefined();
    expect(first.body).toEqual({ ok: true, result: { seq: 1, note: 'ok' } });
    const again = await client.rpc('team.create', { note: 'ok' }, { idem: 'k1' });
    expect(again.headers['idempotent-replay']).toBe('true');
    expect(again.raw).toBe(first.raw);
  });
});
