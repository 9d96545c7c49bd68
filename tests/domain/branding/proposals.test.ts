import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsAfter, fileAndApprove, head, held, mutate, noop, ok, refused, rpc } from '../../helpers/calls.js';
import { brandOrg, FOUNDATION, versionOf, type BrandOrg } from './kit.js';

/** branding.proposeChange and saveFoundation {proposalId}: agents propose, humans decide; an agent's save holds (scenario 2). */

let o: BrandOrg;
beforeAll(async () => {
  o = await brandOrg();
  await ok(o.s, 'branding.saveFoundation', { baseVersion: 0, patch: FOUNDATION });
});
afterAll(() => o.s.close());

const propose = (patch: Record<string, unknown>, key: string, rationale = 'Brighter blue tests better.') =>
  mutate(o.s, 'branding.proposeChange', { baseVersion: 1, patch, rationale }, 'branding.proposal.create', { key });

describe('branding.proposeChange', () => {
  it('an agent proposes (design.write); the same open patch: changed:false; checks as a save; stale base: CONFLICT', async () => {
    const patch = { tokens: { color: { brand: { primary: { $value: '#0a4f96' } } } } };
    const { result, event } = await propose(patch, o.agent.key);
    expect(result).toMatchObject({ changed: true, proposal: { status: 'open', baseVersion: 1, paths: ['tokens.color.brand.primary'], createdBy: o.agent.id } });
    expect(event.payload).toEqual({ proposalId: result.proposal.id, baseVersion: 1, paths: ['tokens.color.brand.primary'] });
    const days = (Date.parse(result.proposal.expiresAt) - Date.parse(result.proposal.createdAt)) / 86_400_000;
    expect(days).toBe(30);
    const again = await noop(o.s, 'branding.proposeChange', { baseVersion: 1, patch, rationale: 'again' }, 'branding.proposal.create', o.agent.key);
    expect(again.proposal.id).toBe(result.proposal.id);
    expect((await ok(o.s, 'branding.getFoundation', {})).proposals.map((p: any) => p.id)).toEqual([result.proposal.id]);
    await refused(
      o.s,
      'branding.proposeChange',
      { baseVersion: 1, patch: { usage: [{ fg: '#aaaaaa', bg: '#ffffff', use: 'text' }] }, rationale: 'x' },
      'BAD_REQUEST',
      {
        key: o.agent.key,
        message: /^usage\.0: 2\.3:1 below 4\.5:1/,
      },
    );
    await refused(o.s, 'branding.proposeChange', { baseVersion: 1, patch: { name: FOUNDATION.name }, rationale: 'x' }, 'BAD_REQUEST', {
      message: /^patch: changes nothing/,
    });
    await refused(o.s, 'branding.proposeChange', { baseVersion: 0, patch, rationale: 'x' }, 'CONFLICT', { message: /retry with baseVersion 1/ });
    await refused(o.s, 'branding.proposeChange', { baseVersion: 1, patch, rationale: '' }, 'BAD_REQUEST', {
      message: /^rationale: must be at least 1 character/,
    });
    await refused(o.s, 'branding.proposeChange', { baseVersion: 1, patch, rationale: 'x' }, 'FORBIDDEN_SCOPE', {
      key: o.viewer.key,
      message: /^missing scope design.write/,
    });
  });

  it('a human declines; declining again: changed:false; applying a declined one: CONFLICT; another org: NOT_FOUND', async () => {
    const { result } = await propose({ name: 'Acme' }, o.designer.key);
    const id = result.proposal.id;
    const { event } = await mutate(o.s, 'branding.saveFoundation', { baseVersion: 1, proposalId: id, decision: 'decline' }, 'branding.proposal.decline');
    expect(event.payload).toEqual({ proposalId: id, baseVersion: 1 });
    await noop(o.s, 'branding.saveFoundation', { baseVersion: 1, proposalId: id, decision: 'decline' }, 'branding.proposal.decline');
    await refused(o.s, 'branding.saveFoundation', { baseVersion: 1, proposalId: id }, 'CONFLICT', {
      message: new RegExp(`proposal ${id} is already declined: propose again`),
    });
    await refused(o.other, 'branding.saveFoundation', { baseVersion: 0, proposalId: id }, 'NOT_FOUND', { message: new RegExp(`proposal ${id} not found`) });
    await refused(o.s, 'branding.saveFoundation', { baseVersion: 1, proposalId: 'bpr_0123456789abcdef' }, 'NOT_FOUND');
  });

  it("scenario 2: an agent's save of a proposal holds; after approval the retry saves; the old key replays the hold; a reused proof is refused", async () => {
    const proposal = (await ok(o.s, 'branding.getFoundation', {})).proposals[0];
    const params = { baseVersion: 1, proposalId: proposal.id };
    const before = await head(o.s);
    const approval = await held(o.s, 'branding.saveFoundation', params, { key: o.adminAgent.key, idem: 'agent-save-1', holdKind: 'branding.signature.hold' });
    expect(approval).toMatchObject({ actionClass: 'branding.save_foundation', subject: { kind: 'branding.signature', subjectId: 'brand_v2' } });
    expect(approval.subject.summary).toBe(`An agent saves the brand foundation as version 2 (on 1): tokens.color.brand.primary #0b5cad → #0a4f96`);
    expect(await versionOf(o)).toBe(1);
    const approvalId = await fileAndApprove(o.s, approval, { requester: o.adminAgent.key });
    const { result, event } = await mutate(o.s, 'branding.saveFoundation', { ...params, approvalId }, 'branding.foundation.save', {
      key: o.adminAgent.key,
      idem: 'agent-save-2',
    });
    expect(result).toMatchObject({ version: 2, changed: true, proposal: { status: 'applied', appliedVersion: 2, decidedBy: o.adminAgent.id } });
    expect(event.payload).toMatchObject({ version: 2, proposalId: proposal.id, approvalId, paths: ['tokens.color.brand.primary'] });
    const replay = await rpc(o.s, 'branding.saveFoundation', params, o.adminAgent.key, 'agent-save-1');
    expect(replay.body.result.status).toBe('approval_required');
    await refused(o.s, 'branding.saveFoundation', { ...params, approvalId }, 'GOVERNANCE_NOT_READY', {
      key: o.adminAgent.key,
      idem: 'agent-save-3',
      message: /was already used .* a proof is single-use/,
    });
    expect((await eventsAfter(o.s, before)).map((e) => e.kind)).toEqual([
      'branding.signature.hold',
      'approval.request.create',
      'approval.request.approve',
      'branding.foundation.save',
    ]);
    const list = await ok(o.s, 'branding.listVersions', { limit: 1 });
    expect(list.versions[0]).toMatchObject({ version: 2, proposalId: proposal.id, approvalId, actor: o.adminAgent.id });
  });

  it("an agent's restore holds too; a human's does not", async () => {
    const approval = await held(
      o.s,
      'branding.restoreFoundation',
      { version: 1, baseVersion: 2 },
      { key: o.adminAgent.key, holdKind: 'branding.signature.hold' },
    );
    expect(approval.actionClass).toBe('branding.restore_foundation');
    expect(approval.subject.summary).toMatch(
      /^An agent restores brand foundation version 1 as version 3 \(on 2\): tokens.color.brand.primary #0a4f96 → #0b5cad$/,
    );
  });
});
