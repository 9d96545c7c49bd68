import { conflict } from '../../protocol/errors.js';
import { emailAi as c } from '../../protocol/methods/email/ai.js';
import type { Queryable } from '../../db/types.js';
import { handler } from '../core/handler.js';
import { mailboxAccess, requireRole, roleIn, threadAccess, type MailboxRole } from './access.js';
import { refreshThreads, type FolderRole } from './folders.js';
import { threadViews } from './model.js';

/*
 * email.moveMailbox (M): a thread, with every message and draft on it, goes to another mailbox of the org; ids stay
 * (as a move within a mailbox keeps them). Each message lands in the folder of the same role there (Inbox, Sent,
 * Archive, Spam, Trash; drafts in Drafts); mail in a folder of the mailbox's own goes to the new Inbox, since the new
 * mailbox has no such folder. The decision log, summary, triage and each member's read state and reactions go with
 * it. Moving mail shows it to the other mailbox's members: owners and members of both mailboxes only, never an agent
 * or a reviewer. Mail waiting to leave (held for review or scheduled) would change reviewers and policy on the way:
 * CONFLICT until it is sent or called back. An assignee who is not in the new mailbox is unassigned.
 */

const MOVERS: readonly MailboxRole[] = ['owner', 'member'];

export const moveMailbox = handler(c.moveMailbox, async (ctx, p) => {
  const me = ctx.principal.id;
  await threadAccess(ctx.q, ctx.orgId, p.threadId, me);
  // Its messages first, then the thread: the order of every other writer of a thread (email.move, reportSpam and the
  // drafts lock messages, then refreshThreads the thread). Thread first, a move racing this one deadlocked.
  await lockMessages(ctx.q, ctx.orgId, p.threadId);
  // FOR UPDATE (its mailbox is in the key the messages reference): no message joins it after this, and the thread and
  // role are read as they now stand.
  const { thread, role } = await threadAccess(ctx.q, ctx.orgId, p.threadId, me, { lock: true });
  const { role: toRole } = await mailboxAccess(ctx.q, ctx.orgId, p.toMailboxId, me);
  requireRole(role, MOVERS, 'move a thread out of this mailbox');
  requireRole(toRole, MOVERS, `move a thread into mailbox ${p.toMailboxId}`);
  const from = thread.mailbox_id;
  if (from === p.toMailboxId) {
    const [view] = await threadViews(ctx.q, ctx.orgId, [thread], me);
    await ctx.emit('email.thread.move_mailbox', p.threadId, { mailboxIds: [from], threadId: p.threadId, moved: 0, unassigned: false, noop: true });
    return { thread: view, moved: 0, unassigned: false, changed: false };
  }
  const messages = await ctx.q.query<{ message_id: string; state: string; role: FolderRole }>(
    `SELECT m.message_id, m.state, f.role FROM email_messages m JOIN email_folders f ON f.org_id = m.org_id AND f.folder_id = m.folder_id
      WHERE m.org_id = $1 AND m.thread_id = $2 ORDER BY m.message_id FOR NO KEY UPDATE OF m`,
    [ctx.orgId, p.threadId],
  );
  const waiting = messages.find((m) => m.state === 'held' || m.state === 'scheduled');
  if (waiting) {
    throw conflict(
      `message ${waiting.message_id} is ${waiting.state === 'held' ? 'held for review' : 'scheduled to leave'}: let it go or call it back (email.undoSend) before moving the thread`,
    );
  }
  const folders = new Map(
    (
      await ctx.q.query<{ folder_id: string; role: FolderRole }>(
        `SELECT folder_id, role FROM email_folders WHERE org_id = $1 AND mailbox_id = $2 AND role <> 'none'`,
        [ctx.orgId, p.toMailboxId],
      )
    ).map((f) => [f.role, f.folder_id]),
  );
  const target = messages.map((m) => folders.get(m.role === 'none' ? 'inbox' : m.role)!);
  const keeps = thread.assignee_id !== null && (await roleIn(ctx.q, ctx.orgId, p.toMailboxId, thread.assignee_id)) !== null;
  const unassigned = thread.assignee_id !== null && !keeps;
  const now = ctx.deps.clock.now().toISOString();
  // One statement: a message's (mailbox, thread) and (mailbox, folder) keys and the thread's mailbox change together,
  // and foreign keys are checked at its end.
  await ctx.q.query(
    `WITH t AS (
       UPDATE email_threads SET mailbox_id = $3, assignee_id = CASE WHEN $6::boolean THEN assignee_id ELSE NULL END
        WHERE org_id = $1 AND thread_id = $2 RETURNING thread_id)
     UPDATE email_messages m SET mailbox_id = $3, folder_id = x.folder_id, updated_at = $7
       FROM unnest($4::text[], $5::text[]) AS x(message_id, folder_id)
      WHERE m.org_id = $1 AND m.message_id = x.message_id AND EXISTS (SELECT 1 FROM t)`,
    [ctx.orgId, p.threadId, p.toMailboxId, messages.map((m) => m.message_id), target, keeps, now],
  );
  await refreshThreads(ctx.q, ctx.orgId, [p.threadId]);
  const { thread: moved } = await threadAccess(ctx.q, ctx.orgId, p.threadId, me);
  const [view] = await threadViews(ctx.q, ctx.orgId, [moved], me);
  await ctx.emit('email.thread.move_mailbox', p.threadId, {
    mailboxIds: [from, p.toMailboxId].sort(),
    fromMailboxId: from,
    toMailboxId: p.toMailboxId,
    threadId: p.threadId,
    moved: messages.length,
    unassigned,
  });
  return { thread: view, moved: messages.length, unassigned, changed: true };
});

/** The thread's messages, locked in id order (NO KEY UPDATE: their own keys stay). */
async function lockMessages(q: Queryable, orgId: string, threadId: string): Promise<void> {
  await q.query('SELECT 1 FROM email_messages WHERE org_id = $1 AND thread_id = $2 ORDER BY message_id FOR NO KEY UPDATE', [orgId, threadId]);
}
