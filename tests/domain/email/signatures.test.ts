import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutate, ok, otherOrg, refused } from '../../helpers/calls.js';
import { expectError } from '../../helpers/frames.js';
import { mailOrg, type MailOrg } from './kit.js';

/*
 * email.signatureSave, email.signatureDelete and email.signatures: a member's own signatures (one default at a time)
 * and the mailbox's shared ones, kept by its owners; another member's own is not found; deleting again is a no-op.
 */

let o: MailOrg;
beforeAll(async () => {
  o = await mailOrg();
});
afterAll(() => o.s.close());

describe('signatures', () => {
  it('saves, lists, updates, keeps one default, deletes; the same content is changed:false', async () => {
    const { result, event } = await mutate(
      o.s,
      'email.signatureSave',
      { mailboxId: o.mailboxId, name: 'Work', text: 'Mia\nAcme', isDefault: true },
      'email.signature.save',
      { key: o.mia.key, entityId: (r) => r.signature.id },
    );
    expect(result.signature).toMatchObject({ mailboxId: o.mailboxId, principalId: o.mia.id, name: 'Work', text: 'Mia\nAcme', html: null, isDefault: true });
    expect(event.payload).toEqual({ mailboxId: o.mailboxId, signatureId: result.signature.id, shared: false, isDefault: true });
    const second = await ok(o.s, 'email.signatureSave', { mailboxId: o.mailboxId, name: 'Short', text: 'M.', isDefault: true }, o.mia.key);
    const listed = (await ok(o.s, 'email.signatures', { mailboxId: o.mailboxId }, o.mia.key)).signatures;
    expect(listed.map((s: any) => [s.name, s.isDefault])).toEqual([
      ['Short', true],
      ['Work', false],
    ]);
    expect((await ok(o.s, 'email.signatures', {}, o.agent.key)).signatures, "another member's own are not listed").toEqual([]);
    const { result: same } = await mutate(
      o.s,
      'email.signatureSave',
      { signatureId: second.signature.id, name: 'Short', text: 'M.', isDefault: true },
      'email.signature.save',
      { key: o.mia.key },
    );
    expect(same.changed).toBe(false);
    expect((await ok(o.s, 'email.signatureSave', { signatureId: second.signature.id, name: 'Short', text: 'Mia L.' }, o.mia.key)).signature.text).toBe(
      'Mia L.',
    );
    await refused(o.s, 'email.signatureSave', { signatureId: second.signature.id, name: 'x', text: 'x' }, 'NOT_FOUND', { key: o.agent.key });
    const { result: deleted } = await mutate(o.s, 'email.signatureDelete', { signatureId: second.signature.id }, 'email.signature.delete', { key: o.mia.key });
    expect(deleted.changed).toBe(true);
    const { result: again, event: noop } = await mutate(o.s, 'email.signatureDelete', { signatureId: second.signature.id }, 'email.signature.delete', {
      key: o.mia.key,
    });
    expect(again.changed).toBe(false);
    expect(noop.payload.noop).toBe(true);
    expect((await ok(o.s, 'email.signatures', {}, o.mia.key)).signatures.map((s: any) => s.name)).toEqual(['Work']);
    await refused(o.s, 'email.signatureSave', { signatureId: second.signature.id, name: 'x', text: 'x' }, 'NOT_FOUND', { key: o.mia.key });
    await refused(o.s, 'email.signatureDelete', { signatureId: 'sig_unknown' }, 'NOT_FOUND');
  });

  it("the shared signature is the owners'; others FORBIDDEN_SCOPE; non-members and other orgs NOT_FOUND; bad fields BAD_REQUEST", async () => {
    await refused(o.s, 'email.signatureSave', { mailboxId: o.mailboxId, name: 'Team', text: 'Acme Sales', shared: true }, 'FORBIDDEN_SCOPE', {
      key: o.mia.key,
      message: /yours is member/,
    });
    const shared = (await ok(o.s, 'email.signatureSave', { mailboxId: o.mailboxId, name: 'Team', text: 'Acme Sales', shared: true })).signature;
    expect(shared.principalId).toBeNull();
    expect((await ok(o.s, 'email.signatures', {}, o.agent.key)).signatures.map((s: any) => s.id)).toEqual([shared.id]);
    await refused(o.s, 'email.signatureSave', { signatureId: shared.id, name: 'Team', text: 'changed' }, 'FORBIDDEN_SCOPE', { key: o.agent.key });
    await refused(o.s, 'email.signatureDelete', { signatureId: shared.id }, 'FORBIDDEN_SCOPE', { key: o.mia.key });
    await refused(o.s, 'email.signatureSave', { mailboxId: o.mailboxId, name: 'x', text: 'x' }, 'NOT_FOUND', { key: o.max.key });
    await refused(o.s, 'email.signatures', { mailboxId: o.mailboxId }, 'NOT_FOUND', { key: o.max.key });
    await refused(o.s, 'email.signatureSave', { name: 'x', text: 'x' }, 'BAD_REQUEST', { message: /^mailboxId: / });
    await refused(o.s, 'email.signatureSave', { mailboxId: o.mailboxId, name: '', text: 'x' }, 'BAD_REQUEST', { message: /^name: / });
    await refused(o.s, 'email.signatureSave', { signatureId: shared.id, mailboxId: o.mailboxId, name: 'x', text: 'x' }, 'BAD_REQUEST', {
      message: /^mailboxId: /,
    });
    expectError(await (await otherOrg(o.s)).rpc('email.signatureDelete', { signatureId: shared.id }), 'NOT_FOUND');
    expect((await ok(o.s, 'email.signatureDelete', { signatureId: shared.id })).changed).toBe(true);
  });
});
