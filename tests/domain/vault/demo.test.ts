import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoDesk } from '../../../cli/demo.js';
import { demoVault } from '../../../cli/demo-vault.js';
import { Pipeline } from '../../../domain/core/pipeline.js';
import { systemMintKey } from '../../../domain/system.js';
import { read } from '../../helpers/calls.js';
import { vaultOrg, type VaultOrg } from './kit.js';

/*
 * The demo company's vault (cli/demo-vault.ts) told on an org of its own: the bank feed token granted to the
 * bookkeeping agent and leased, the break-glass payroll password leased after a human approved. The whole story
 * runs in tests/cli/demo.test.ts.
 */

let v: VaultOrg;
beforeAll(async () => {
  v = await vaultOrg();
});
afterAll(() => v.close());

describe('the demo vault', () => {
  it('seeds two secrets and their leases, one through a human approval', async () => {
    const slug = (await v.s.runtime.db.query<{ slug: string }>('SELECT slug FROM orgs WHERE org_id = $1', [v.s.org.orgId]))[0]!.slug;
    const agent = await systemMintKey(v.s.runtime.db, slug, { name: 'Demo bookkeeping agent', tier: 'agent' });
    const approver = await systemMintKey(v.s.runtime.db, slug, { name: 'Demo finance lead', tier: 'approver' });
    const clock = { date: '2026-11-30', live: true, now: () => new Date() };
    const pipeline = new Pipeline({ ...v.s.runtime.deps, clock }, v.s.runtime.pipeline.handlers, v.s.runtime.pipeline.reads);
    const desk = new DemoDesk(v.s.runtime, pipeline, clock, v.s.org.orgId, { admin: v.s.org.adminKey, agent: agent.apiKey, approver: approver.apiKey });
    const lines: string[] = [];
    const summary = await demoVault(desk, (l) => lines.push(l));
    expect(summary[0]).toMatch(/^Vault: bank-feed.api-token \(cred_\w+\) leased by the bookkeeping agent \(crl_\w+/);
    const listed = await read(v.s, 'credential.list', {});
    const byName = new Map(listed.credentials.map((c: any) => [c.name, c]));
    expect((byName.get('bank-feed.api-token') as any).leases).toHaveLength(1);
    expect((byName.get('payroll-portal.password') as any).leases[0].approvalId).toMatch(/^apr_/);
  });
});
