import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsAfter, fileAndApprove, head, held, mutate, noop, read, refused, rpc } from '../../helpers/calls.js';
import { memOrg, type MemOrg } from '../knowledge/kit.js';

/** sop.create, update, delete and list: versioned procedures whose steps name registry methods. */

let o: MemOrg;
beforeAll(async () => {
  o = await memOrg();
});
afterAll(() => o.s.close());

const steps = [
  { text: 'Reconcile the bank feed', method: 'books.matchAccept' },
  { text: 'Sign the BAS', requiresHuman: true },
];
const create = async (title: string, extra: Record<string, unknown> = {}, key?: string) =>
  (await mutate(o.s, 'sop.create', { title, purpose: 'Close the month.', steps, ...extra }, 'sop.procedure.create', { key })).result.sop;

describe('sop.create', () => {
  it('a draft with a slug from the title and sha256 in the event; the slug taken: CONFLICT; an unknown method names the step', async () => {
    const { result, event } = await mutate(o.s, 'sop.create', { title: 'Month-end Close!', purpose: 'Close the month.', steps }, 'sop.procedure.create', {
      entityId: (r) => r.sop.id,
    });
    expect(result.sop).toMatchObject({ slug: 'month-end-close', status: 'draft', version: 1, ownerId: o.owner.id });
    expect(result.sop.steps[0]).toMatchObject({ id: expect.stringMatching(/^stp_/), method: 'books.matchAccept', kind: 'action', requiresHuman: false });
    expect(event.payload).toEqual({ sopId: result.sop.id, version: 1, sha256: result.sop.sha256, status: 'draft', steps: 2, methods: 1, approvalId: null });
    await refused(o.s, 'sop.create', { title: 'month end close', purpose: 'p', steps }, 'CONFLICT', { message: /slug "month-end-close" is taken by sop_/ });
    const bad = [...steps, ...steps, { text: 'x', method: 'books.nope' }];
    await refused(o.s, 'sop.create', { title: 'Other', purpose: 'p', steps: bad }, 'BAD_REQUEST', { message: /^steps\.4\.method: unknown method/ });
    await refused(o.s, 'sop.create', { title: 'Many', purpose: 'p', steps: Array.from({ length: 101 }, () => ({ text: 's' })) }, 'BAD_REQUEST', {
      message: /^steps: must be at most 100/,
    });
    await refused(o.s, 'sop.create', { title: '!!!', purpose: 'p', steps }, 'BAD_REQUEST', { message: /^title: needs a letter/ });
    await refused(o.s, 'sop.create', { title: 'Viewer', purpose: 'p', steps }, 'FORBIDDEN_SCOPE', { key: o.viewer.key, message: /missing scope org.write/ });
    const before = await head(o.s);
    const a = await rpc(o.s, 'sop.create', { title: 'Keyed', purpose: 'p', steps }, undefined, 'sop-idem');
    const b = await rpc(o.s, 'sop.create', { title: 'Keyed', purpose: 'p', steps }, undefined, 'sop-idem');
    expect(b.body).toEqual(a.body);
    expect((await eventsAfter(o.s, before)).length).toBe(1);
  });

  it("an agent's active SOP holds (sop.create) and publishes after approval", async () => {
    const params = { title: 'Agent publishes', purpose: 'p', steps, status: 'active' };
    const approval = await held(o.s, 'sop.create', params, { key: o.agent.key, holdKind: 'sop.signature.hold' });
    const approvalId = await fileAndApprove(o.s, approval, { requester: o.agent.key });
    const sop = await create('Agent publishes', { purpose: 'p', status: 'active', approvalId }, o.agent.key);
    expect(sop).toMatchObject({ id: approval.subject.subjectId, status: 'active' });
    expect((await create('Agent drafts', {}, o.agent.key)).status).toBe('draft');
  });
});

describe('sop.update', () => {
  it('a new version with a diff; ifVersion stale: CONFLICT; the same: changed:false; unknown step ids name the field', async () => {
    const sop = await create('Onboarding');
    const [first, second] = sop.steps;
    const { result, event } = await mutate(
      o.s,
      'sop.update',
      { sopId: sop.id, ifVersion: 1, steps: [{ id: second.id, text: second.text, requiresHuman: true }, { text: 'File the TFN declaration' }] },
      'sop.procedure.update',
    );
    expect(result.sop.version).toBe(2);
    expect(result.diff).toMatchObject({ fields: [], removed: [first.id], changed: [], moved: false });
    expect(result.diff.added).toHaveLength(1);
    expect(event.payload).toMatchObject({ sopId: sop.id, version: 2, sha256: result.sop.sha256, status: 'draft', added: 1, removed: 1 });
    await refused(o.s, 'sop.update', { sopId: sop.id, ifVersion: 1, title: 'x' }, 'CONFLICT', { message: /at version 2, not 1/ });
    await noop(o.s, 'sop.update', { sopId: sop.id, ifVersion: 2, title: 'Onboarding' }, 'sop.procedure.update');
    await refused(o.s, 'sop.update', { sopId: sop.id, ifVersion: 2, steps: [{ id: 'stp_nosuch', text: 'x' }] }, 'BAD_REQUEST', {
      message: /^steps\.0\.id: not a step of/,
    });
    await refused(o.s, 'sop.update', { sopId: 'sop_nosuch', ifVersion: 1 }, 'NOT_FOUND');
    await refused(o.other, 'sop.update', { sopId: sop.id, ifVersion: 2 }, 'NOT_FOUND');
    // Activating is an agent's act only with a human's approval; changing an active SOP too.
    const approval = await held(o.s, 'sop.update', { sopId: sop.id, ifVersion: 2, status: 'active' }, { key: o.agent.key, holdKind: 'sop.signature.hold' });
    const approvalId = await fileAndApprove(o.s, approval, { requester: o.agent.key });
    await mutate(o.s, 'sop.update', { sopId: sop.id, ifVersion: 2, status: 'active', approvalId }, 'sop.procedure.update', { key: o.agent.key });
    await held(o.s, 'sop.update', { sopId: sop.id, ifVersion: 3, purpose: 'Faster.' }, { key: o.agent.key });
    await refused(o.s, 'sop.update', { sopId: sop.id, ifVersion: 3, status: 'draft' }, 'CONFLICT', { message: /does not go back to draft/ });
  });
});

describe('sop.delete and sop.list', () => {
  it('archives (again: changed:false); an archived SOP refuses updates; list by status, q and method appends nothing', async () => {
    const sop = await create('Petty cash count', { steps: [{ text: 'Count the tin', method: 'board.createTask' }] });
    const keep = await create('Supplier onboarding');
    const found = await read(o.s, 'sop.list', { q: 'petty cash' });
    expect(found.sops.map((s: any) => s.id)).toEqual([sop.id]);
    expect((await read(o.s, 'sop.list', { method: 'board.createTask' })).sops.map((s: any) => s.id)).toEqual([sop.id]);
    const { result, event } = await mutate(o.s, 'sop.delete', { sopId: sop.id }, 'sop.procedure.delete');
    expect(result.sop).toMatchObject({ status: 'archived', version: 2 });
    expect(event.payload).toMatchObject({ status: 'archived', was: 'draft' });
    await noop(o.s, 'sop.delete', { sopId: sop.id }, 'sop.procedure.delete');
    await refused(o.s, 'sop.update', { sopId: sop.id, ifVersion: 2, title: 'x' }, 'CONFLICT', { message: /archived/ });
    expect((await read(o.s, 'sop.list', {})).sops.map((s: any) => s.id)).not.toContain(sop.id);
    expect((await read(o.s, 'sop.list', { status: 'archived' })).sops.map((s: any) => s.id)).toEqual([sop.id]);
    const page = await read(o.s, 'sop.list', { limit: 1 });
    expect(page.nextCursor).not.toBeNull();
    const rest = await read(o.s, 'sop.list', { limit: 500, cursor: page.nextCursor });
    expect([...page.sops, ...rest.sops].map((s: any) => s.id)).toContain(keep.id);
    await refused(o.s, 'sop.list', { limit: 501 }, 'BAD_REQUEST', { message: /^limit: must be at most 500/ });
    await refused(o.s, 'sop.list', { cursor: '!!' }, 'BAD_REQUEST', { message: /^cursor: / });
    await refused(o.s, 'sop.delete', { sopId: sop.id }, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
    await refused(o.other, 'sop.delete', { sopId: sop.id }, 'NOT_FOUND');
  });
});
