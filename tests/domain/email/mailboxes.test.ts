import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TxQueryable } from '../../../db/types.js';
import { createMailbox, OperatorError, parseSeat, setMailboxMembers } from '../../../domain/email/index.js';
import { eventsAfter, head, ok } from '../../helpers/calls.js';
import { mailOrg, type MailOrg } from './kit.js';

/*
 * The operator's mailbox acts (the CLI's mailbox-create and mailbox-members run these in a transaction of their
 * own; tests/cli/mailbox.test.ts runs the commands): what they refuse, naming the flag, and their system events.
 */

let o: MailOrg;
beforeAll(async () => {
  o = await mailOrg();
});
afterAll(() => o.s.close());

const tx = <T>(fn: (q: TxQueryable) => Promise<T>) => o.s.runtime.db.tx(fn);
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => 'accepted',
    (e: unknown) => (e instanceof OperatorError ? e.message : `not an OperatorError: ${String(e)}`),
  );

describe('mailbox-create and mailbox-members, in process', () => {
  it('refuses an unknown member, a role against the principal kind, no owner, a taken address, a bad seat', async () => {
    const org = o.s.org.orgId;
    const make = (members: { principalId: string; role: 'owner' | 'reviewer' | 'member' | 'agent' }[], address = 'new@acme.example') =>
      refusal(tx((q) => createMailbox(q, org, { address, members })));
    expect(await make([{ principalId: 'usr_nobody', role: 'owner' }])).toMatch(/^--member usr_nobody: no member of this org/);
    expect(await make([{ principalId: o.agent.id, role: 'owner' }])).toMatch(/an agent's role is agent, not owner/);
    expect(
      await make([
        { principalId: o.owner.id, role: 'owner' },
        { principalId: o.mia.id, role: 'agent' },
      ]),
    ).toMatch(/a human's role is owner, reviewer or member/);
    expect(await make([{ principalId: o.mia.id, role: 'member' }])).toMatch(/needs an owner/);
    expect(await make([{ principalId: o.mia.id, role: 'owner' }], o.address.toUpperCase())).toMatch(/already has a mailbox/);
    expect(() => parseSeat('usr_x')).toThrow(/give <member id>:<role>/);
    expect(() => parseSeat('usr_x:boss')).toThrow(/roles: owner, reviewer, member, agent/);
  });

  it('sets members and roles with one system event; a no-op says so; the last owner stays', async () => {
    const before = await head(o.s);
    const set = await tx((q) => setMailboxMembers(q, o.s.org.orgId, { address: o.address, set: [{ principalId: o.max.id, role: 'reviewer' }], remove: [] }));
    expect(set.changed).toBe(true);
    expect(set.members).toContainEqual({ principalId: o.max.id, role: 'reviewer' });
    expect((await ok(o.s, 'email.mailboxes', {}, o.max.key)).mailboxes.map((m: any) => [m.id, m.role])).toContainEqual([o.mailboxId, 'reviewer']);
    const same = await tx((q) => setMailboxMembers(q, o.s.org.orgId, { address: o.address, set: [{ principalId: o.max.id, role: 'reviewer' }], remove: [] }));
    expect(same.changed).toBe(false);
    const events = await eventsAfter(o.s, before);
    expect(events.map((e) => [e.kind, e.actor, e.payload.noop ?? false])).toEqual([
      ['email.mailbox.set_members', '', false],
      ['email.mailbox.set_members', '', true],
    ]);
    expect(await refusal(tx((q) => setMailboxMembers(q, o.s.org.orgId, { address: o.address, set: [], remove: [o.owner.id] })))).toMatch(/at least one owner/);
    expect(await refusal(tx((q) => setMailboxMembers(q, o.s.org.orgId, { address: 'none@acme.example', set: [], remove: [o.max.id] })))).toMatch(/no mailbox/);
    // Removed: the mailbox and its mail are not found for max any more.
    await tx((q) => setMailboxMembers(q, o.s.org.orgId, { address: o.address, set: [], remove: [o.max.id] }));
    expect((await ok(o.s, 'email.mailboxes', {}, o.max.key)).mailboxes.map((m: any) => m.id)).not.toContain(o.mailboxId);
  });
});
