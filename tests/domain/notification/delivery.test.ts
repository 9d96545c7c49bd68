import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsAfter, expectOk, head } from '../../helpers/calls.js';
import { assign, createTask, human, mailsTo, openKit, rowsOf, type Human, type Kit } from './kit.js';

/**
 * Notification delivery (domain/notification/delivery.ts) through a real SMTP listener, run by hand with a clock the
 * tests move: what is routed to whom, modes, digests, quiet hours, security notices, and what a mail may say.
 */

let kit: Kit;
let alice: Human;
let bob: Human;
let carol: Human;
let orgName: string;
const CANARY = 'canary-7f3e-do-not-leak';
const footer = () => `--\n${orgName}. Choose what you are told and when: notification.updatePreferences.`;

beforeAll(async () => {
  kit = await openKit();
  alice = await human(kit, 'alice');
  bob = await human(kit, 'bob');
  carol = await human(kit, 'carol', 'approver');
  orgName = `Test ${kit.s.org.slug}`;
});
afterAll(() => kit?.close());

const prefs = async (p: Human, params: Record<string, unknown>) =>
  expectOk('notification.updatePreferences', await kit.s.client.rpc('notification.updatePreferences', params, { key: p.key }));
const at = (iso: string) => (kit.clock.now = new Date(iso));

describe('instant notifications', () => {
  it('a task assigned: the assignee gets one mail naming the task, and nothing that is not theirs to read', async () => {
    at('2026-03-02T10:00:00Z');
    const before = await head(kit.s.client);
    const task = await createTask(kit, { title: 'Reconcile March', description: `private notes ${CANARY}` });
    await assign(kit, task.id, alice.id);
    const seq = await head(kit.s.client);
    const run = await kit.delivery.runOnce();
    expect(run.decided).toBeGreaterThanOrEqual(1);
    const [mail, ...more] = await mailsTo(kit, alice.email);
    expect(more).toEqual([]);
    expect(mail.subject).toBe('Assigned to you: Reconcile March');
    expect(mail.to && !Array.isArray(mail.to) && mail.to.value[0].address).toBe(alice.email);
    expect(mail.headers.get('auto-submitted')).toBe('auto-generated');
    // The whole body: the recipient's name, their task's title and id, the footer. Not the description.
    expect(mail.text!.trim()).toBe(`Hello alice,\n\nA task was assigned to you: Reconcile March (${task.id})\n\n${footer()}`);
    // Delivery appends nothing; the call's free text is nowhere in the ledger.
    expect(await head(kit.s.client)).toBe(seq);
    expect(JSON.stringify(await eventsAfter(kit.s.client, before))).not.toContain(CANARY);
    expect((await rowsOf(kit, alice.id)).map((r) => [r.type, r.mode, r.status])).toEqual([
      ['security', 'instant', 'sent'], // the key minted for alice (kit.ts human)
      ['task.assigned', 'instant', 'sent'],
    ]);
  });

  it('a task created with an assignee is announced like an assignment', async () => {
    const task = expectOk('board.create', await kit.s.client.rpc('board.create', { type: 'task', title: 'Close Q1', assignee: bob.id }));
    const other = await createTask(kit, { title: 'Created, then assigned' });
    await assign(kit, other.id, alice.id); // the same batch: announced once, by its assignment
    await kit.delivery.runOnce();
    const mails = await mailsTo(kit, bob.email);
    expect(mails.map((m) => m.subject)).toEqual(['Assigned to you: Close Q1']);
    expect(mails[0].text).toContain(task.id);
    expect((await mailsTo(kit, alice.email)).map((m) => m.subject)).toEqual(['Assigned to you: Reconcile March', 'Assigned to you: Created, then assigned']);
  });

  it('an approval requested mails its deciders (not the requester); the decision mails the requester (not the decider)', async () => {
    const summary = `Publish plan 7 ${CANARY}`;
    const before = await head(kit.s.client);
    const filed = expectOk(
      'approval.request',
      await kit.s.client.rpc(
        'approval.request',
        { actionClass: 'board.publish_plan', payloadHash: 'b'.repeat(64), subject: { kind: 'board.plan', subjectId: 'plan_7', summary } },
        { key: bob.key },
      ),
    );
    await kit.delivery.runOnce();
    const [asked] = await mailsTo(kit, carol.email);
    expect(asked.subject).toBe(`An approval waits for your decision: ${summary}`);
    expect(asked.text).toContain(`http://localhost:8080/approvals/${filed.approvalId}`);
    expect((await mailsTo(kit, bob.email)).map((m) => m.subject)).toEqual(['Assigned to you: Close Q1']);
    expectOk('approval.resolve', await kit.s.client.rpc('approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, { key: carol.key }));
    await kit.delivery.runOnce();
    const decided = (await mailsTo(kit, bob.email)).at(-1)!;
    expect(decided.subject).toBe('Your approval request was approved');
    expect(decided.text).toContain(filed.approvalId);
    expect(await mailsTo(kit, carol.email)).toHaveLength(1);
    // The summary is the approval's words: in the decider's mail, never in an event.
    expect(JSON.stringify(await eventsAfter(kit.s.client, before))).not.toContain(CANARY);
  });

  it('nobody is told of their own act: assigning yourself mails nobody, being assigned by another does', async () => {
    const mine = await createTask(kit, { title: 'Self-assigned' }, alice.key);
    await assign(kit, mine.id, alice.id, alice.key);
    await kit.delivery.runOnce();
    expect(await mailsTo(kit, alice.email)).toHaveLength(2); // the two of the tests before
    const theirs = await createTask(kit, { title: 'Assigned by bob' }, bob.key);
    await assign(kit, theirs.id, alice.id, bob.key);
    await kit.delivery.runOnce();
    expect((await mailsTo(kit, alice.email)).map((m) => m.subject).slice(2)).toEqual(['Assigned to you: Assigned by bob']);
  });

  it('agents are never mailed, even with an address on their record', async () => {
    const agent = await kit.s.client.mint({ tier: 'agent' }, 'ops agent');
    await kit.s.runtime.db.query('UPDATE principals SET email = $3 WHERE org_id = $1 AND principal_id = $2', [
      kit.s.org.orgId,
      agent.principal.id,
      'agent@example.test',
    ]);
    const task = await createTask(kit, { title: 'For the agent' });
    await assign(kit, task.id, agent.principal.id);
    await kit.delivery.runOnce();
    expect(await rowsOf(kit, agent.principal.id)).toEqual([]);
    expect(await mailsTo(kit, 'agent@example.test')).toEqual([]);
  });
});

describe('preferences applied', () => {
  it('mode off: nothing is queued or mailed; back to instant: the next one is', async () => {
    await prefs(bob, { events: { 'task.assigned': 'off' } });
    const sent = (await mailsTo(kit, bob.email)).length;
    const quiet = await createTask(kit, { title: 'Nobody tells bob' });
    await assign(kit, quiet.id, bob.id);
    await kit.delivery.runOnce();
    expect(await mailsTo(kit, bob.email)).toHaveLength(sent);
    expect((await rowsOf(kit, bob.id)).filter((r) => r.type === 'task.assigned')).toHaveLength(1); // Close Q1's only
    await prefs(bob, { events: { 'task.assigned': null } });
    const loud = await createTask(kit, { title: 'Bob hears this' });
    await assign(kit, loud.id, bob.id);
    await kit.delivery.runOnce();
    expect((await mailsTo(kit, bob.email)).at(-1)!.subject).toBe('Assigned to you: Bob hears this');
  });

  it('digest: nothing until the digest hour, then one mail listing every item', async () => {
    const dave = await human(kit, 'dave');
    await prefs(dave, { events: { 'task.assigned': 'digest' }, digest: { frequency: 'daily', hour: 9 } });
    at('2026-03-02T10:00:00Z');
    const titles = ['Digest one', 'Digest two', 'Digest three'];
    for (const title of titles) await assign(kit, (await createTask(kit, { title })).id, dave.id);
    await kit.delivery.runOnce();
    expect(await mailsTo(kit, dave.email)).toEqual([]);
    expect((await rowsOf(kit, dave.id)).filter((r) => r.mode === 'digest').map((r) => [r.type, new Date(r.not_before).toISOString()])).toEqual(
      titles.map(() => ['task.assigned', '2026-03-03T09:00:00.000Z']),
    );
    at('2026-03-03T08:59:00Z');
    await kit.delivery.runOnce();
    expect(await mailsTo(kit, dave.email)).toEqual([]);
    at('2026-03-03T09:00:00Z');
    await kit.delivery.runOnce();
    const [digest, ...more] = await mailsTo(kit, dave.email);
    expect(more).toEqual([]);
    expect(digest.subject).toBe(`Your digest from ${orgName}: 3 updates`);
    const lines = digest.text!.split('\n').filter((l) => l.startsWith('- '));
    expect(lines.map((l) => l.replace(/ \(task_\w+\)$/, ''))).toEqual(titles.map((t) => `- A task was assigned to you: ${t}`));
    expect((await rowsOf(kit, dave.id)).every((r) => r.status === 'sent')).toBe(true);
  });

  it('weekly digest in the member’s zone: due on the weekday at the hour there', async () => {
    const erin = await human(kit, 'erin');
    await prefs(erin, { events: { 'task.assigned': 'digest' }, digest: { frequency: 'weekly', hour: 8, weekday: 'fri' } });
    await kit.s.runtime.db.query('UPDATE principals SET timezone = $3 WHERE org_id = $1 AND principal_id = $2', [kit.s.org.orgId, erin.id, 'Asia/Tokyo']);
    at('2026-03-03T12:00:00Z'); // Tuesday
    await assign(kit, (await createTask(kit, { title: 'Weekly item' })).id, erin.id);
    await kit.delivery.runOnce();
    // Friday 08:00 in Tokyo is Thursday 23:00 UTC.
    expect((await rowsOf(kit, erin.id)).filter((r) => r.type === 'task.assigned').map((r) => new Date(r.not_before).toISOString())).toEqual([
      '2026-03-05T23:00:00.000Z',
    ]);
  });

  it('quiet hours hold an instant notification until they end', async () => {
    const frank = await human(kit, 'frank');
    await prefs(frank, { quietHours: { start: '22:00', end: '07:00', timezone: 'Europe/Berlin' } });
    at('2026-03-04T22:30:00Z'); // 23:30 in Berlin
    await assign(kit, (await createTask(kit, { title: 'Late work' })).id, frank.id);
    await kit.delivery.runOnce();
    expect(await mailsTo(kit, frank.email)).toEqual([]);
    at('2026-03-05T05:59:00Z'); // 06:59 in Berlin
    await kit.delivery.runOnce();
    expect(await mailsTo(kit, frank.email)).toEqual([]);
    at('2026-03-05T06:00:00Z'); // 07:00 in Berlin
    await kit.delivery.runOnce();
    expect((await mailsTo(kit, frank.email)).map((m) => m.subject)).toEqual(['Assigned to you: Late work']);
  });

  it('security notices cannot be turned off, ignore quiet hours, and still arrive', async () => {
    const gina = await human(kit, 'gina');
    await prefs(gina, { quietHours: { start: '00:00', end: '23:59', timezone: 'UTC' } });
    const refused = await kit.s.client.rpc('notification.updatePreferences', { events: { security: 'off' } }, { key: gina.key });
    expect(refused.body.error.message).toMatch(/^events\.security: /);
    // Even a stored row that says off (written by hand) is read as instant.
    await kit.s.runtime.db.query(
      `UPDATE notification_preferences SET events = '{"security": "off", "task.assigned": "off"}'::jsonb WHERE org_id = $1 AND target = $2`,
      [kit.s.org.orgId, gina.id],
    );
    at('2026-03-06T12:00:00Z');
    expectOk('user.updateRole', await kit.s.client.rpc('user.updateRole', { userId: gina.id, role: 'viewer' }));
    await assign(kit, (await createTask(kit, { title: 'Muted' })).id, gina.id);
    await kit.delivery.runOnce();
    const mails = await mailsTo(kit, gina.email);
    expect(mails.map((m) => m.subject)).toEqual(['Security notice about your account']);
    expect(mails[0].text).toContain('Your role changed from member to viewer.');
  });

  it('a member suspended while a digest waits still hears security notices, and nothing else', async () => {
    const hugo = await human(kit, 'hugo');
    await prefs(hugo, { events: { 'task.assigned': 'digest' } });
    at('2026-03-07T10:00:00Z');
    await assign(kit, (await createTask(kit, { title: 'Waits for the digest' })).id, hugo.id);
    await kit.delivery.runOnce();
    expectOk('admin.deactivate', await kit.s.client.rpc('admin.deactivate', { memberId: hugo.id, reason: 'test' }));
    at('2026-03-08T09:00:00Z');
    await kit.delivery.runOnce();
    expect((await mailsTo(kit, hugo.email)).map((m) => m.text!.split('\n')[2])).toEqual([
      'Your access was suspended: your API keys are blocked until an admin reactivates you. If you did not expect this, tell an admin at once.',
    ]);
    expect((await rowsOf(kit, hugo.id)).map((r) => [r.type, r.status])).toEqual([
      ['security', 'sent'], // its key
      ['task.assigned', 'dropped'],
      ['security', 'sent'],
    ]);
  });
});
