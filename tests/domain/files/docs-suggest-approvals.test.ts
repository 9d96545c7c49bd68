import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { held, mutate, ok, refused } from '../../helpers/calls.js';
import { makeDoc, readAll } from './docs-kit.js';
import { driveOrg, type DriveOrg } from './drive-kit.js';

/* A suggestion rejected while an agent's accept of it waits for a human: that approval is withdrawn (no dead item in the inbox). */

let o: DriveOrg;
beforeAll(async () => {
  o = await driveOrg();
});
afterAll(() => o.s.close());

describe('files.docSuggestResolve reject', () => {
  it('closes the approval pending for the agent’s accept of the same suggestion', async () => {
    const file = await makeDoc(o, o.mia.key, { markdown: '# Terms\n\nPayment within 30 days.' }, { reviewMode: true });
    const [, terms] = (await readAll(o, file.id, o.agent.key)).blocks.map((b) => b.attrs.id);
    const edit = await ok(
      o.s,
      'files.docWriteRevision',
      { fileId: file.id, baseRevision: 1, ops: [{ op: 'replaceText', blockId: terms, find: '30 days', replace: '14 days' }] },
      o.agent.key,
    );
    const approval = await held(o.s, 'files.docSuggestResolve', { suggestionId: edit.suggestionId, action: 'accept' }, { key: o.agent.key });
    const { actionClass, payloadHash, subject } = approval;
    const { approvalId } = await ok(o.s, 'approval.request', { actionClass, payloadHash, subject }, o.agent.key);
    await mutate(o.s, 'files.docSuggestResolve', { suggestionId: edit.suggestionId, action: 'reject' }, 'files.suggestion.reject', { key: o.mia.key });
    expect(await ok(o.s, 'approval.get', { approvalId })).toMatchObject({ status: 'withdrawn', note: expect.stringContaining(edit.suggestionId) });
    await refused(o.s, 'approval.resolve', { approvalId, decision: 'approve' }, 'CONFLICT', { message: /already withdrawn/ });
  });
});
