import { badRequest } from '../../protocol/errors.js';
import { checkEmoji } from '../../protocol/emoji.js';
import { sha256Hex } from '../../protocol/hashing.js';
import { emailWrites as c } from '../../protocol/methods/email/writes.js';
import { one } from '../../db/types.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { mailboxAccess, messageAccess, messagesOf, requireRole, roleIn, threadAccess } from './access.js';
import { threadViews } from './model.js';

/*
 * Each member's own acts on the mail: read state and reactions (per principal: an agent's leave everyone else's
 * as they were), who answers a thread, and why it was handled. Events carry ids, counts and, for a decision, the
 * SHA-256 of its text: never the text, an emoji, an address or a subject.
 */

/** Events about several mailboxes name each (event visibility: a reader must be in every one). */
const mailboxesOf = (rows: readonly { mailbox_id: string }[]) => [...new Set(rows.map((r) => r.mailbox_id))].sort();

export const markRead = handler(c.markRead, async (ctx, p) => {
  const me = ctx.principal.id;
  const { rows } = await messagesOf(ctx.q, ctx.orgId, p.ids, me);
  // Only mail received has a read state; drafts and sent mail are the mailbox's own.
  const ids = rows.filter((r) => r.state === 'received').map((r) => r.message_id);
  const now = ctx.deps.clock.now().toISOString();
  const touched = p.read
    ? await ctx.q.query(
        `INSERT INTO email_message_reads (org_id, principal_id, message_id, read_at) SELECT $1, $2, id, $4 FROM unnest($3::text[]) AS id
         ON CONFLICT DO NOTHING RETURNING message_id`,
        [ctx.orgId, me, ids, now],
      )
    : await ctx.q.query('DELETE FROM email_message_reads WHERE org_id = $1 AND principal_id = $2 AND message_id = ANY($3::text[]) RETURNING message_id', [
        ctx.orgId,
        me,
        ids,
      ]);
  const mailboxIds = mailboxesOf(rows);
  await ctx.emit('email.message.mark_read', mailboxIds[0] ?? p.ids[0], {
    mailboxIds,
    messages: rows.length,
    updated: touched.length,
    read: p.read,
    ...(touched.length === 0 ? { noop: true } : {}),
  });
  return { updated: touched.length, changed: touched.length > 0 };
});

export const markAllRead = handler(c.markAllRead, async (ctx, p) => {
  const me = ctx.principal.id;
  await mailboxAccess(ctx.q, ctx.orgId, p.mailboxId, me);
  const now = ctx.deps.clock.now().toISOString();
  // Mail received after the call's time (or `before`) stays unread, whatever arrives while this runs.
  const before = p.before === undefined ? now : new Date(p.before).toISOString();
  const touched = await ctx.q.query(
    `INSERT INTO email_message_reads (org_id, principal_id, message_id, read_at)
     SELECT $1, $2, m.message_id, $4 FROM email_messages m
      WHERE m.org_id = $1 AND m.mailbox_id = $3 AND m.state = 'received' AND m.received_at <= $5
     ON CONFLICT DO NOTHING RETURNING message_id`,
    [ctx.orgId, me, p.mailboxId, now, before],
  );
  await ctx.emit('email.mailbox.mark_all_read', p.mailboxId, {
    mailboxId: p.mailboxId,
    updated: touched.length,
    ...(touched.length === 0 ? { noop: true } : {}),
  });
  return { updated: touched.length, before, changed: touched.length > 0 };
});

export const react = handler(c.react, async (ctx, p) => {
  const me = ctx.principal.id;
  const emoji = checkEmoji(p.emoji);
  const { message } = await messageAccess(ctx.q, ctx.orgId, p.messageId, me, { lock: true });
  if (message.state === 'discarded') throw badRequest('messageId', `message ${p.messageId} is a discarded draft`);
  const now = ctx.deps.clock.now().toISOString();
  const touched = p.on
    ? await ctx.q.query(
        `INSERT INTO email_reactions (org_id, message_id, emoji, principal_id, reacted_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING 1 AS one`,
        [ctx.orgId, p.messageId, emoji, me, now],
      )
    : await ctx.q.query('DELETE FROM email_reactions WHERE org_id = $1 AND message_id = $2 AND emoji = $3 AND principal_id = $4 RETURNING 1 AS one', [
        ctx.orgId,
        p.messageId,
        emoji,
        me,
      ]);
  const reactions = await ctx.q.query<{ emoji: string; count: number; mine: boolean }>(
    `SELECT emoji, count(*)::int AS count, bool_or(principal_id = $3) AS mine FROM email_reactions
      WHERE org_id = $1 AND message_id = $2 GROUP BY emoji ORDER BY min(reacted_at), emoji`,
    [ctx.orgId, p.messageId, me],
  );
  const changed = touched.length > 0;
  await ctx.emit('email.message.react', p.messageId, {
    mailboxId: message.mailbox_id,
    threadId: message.thread_id,
    messageId: p.messageId,
    on: p.on,
    count: reactions.reduce((n, r) => n + Number(r.count), 0),
    ...(changed ? {} : { noop: true }),
  });
  return { reactions: reactions.map((r) => ({ emoji: r.emoji, count: Number(r.count), mine: r.mine })), changed };
});

export const delegate = handler(c.delegate, async (ctx, p) => {
  const me = ctx.principal.id;
  const { thread, role } = await threadAccess(ctx.q, ctx.orgId, p.threadId, me, { lock: true });
  if (p.to !== null && (await roleIn(ctx.q, ctx.orgId, thread.mailbox_id, p.to)) === null) {
    throw badRequest('to', `${p.to} is not a member of mailbox ${thread.mailbox_id}: delegate to one of its members (email.mailboxes lists them)`);
  }
  // An agent hands on what is its own or no one's; taking a thread from a person is a person's call.
  if (thread.assignee_id !== null && thread.assignee_id !== me) requireRole(role, ['owner', 'reviewer', 'member'], 'hand on a thread another member answers');
  const changed = thread.assignee_id !== p.to;
  if (changed) await ctx.q.query('UPDATE email_threads SET assignee_id = $3 WHERE org_id = $1 AND thread_id = $2', [ctx.orgId, p.threadId, p.to]);
  const row = { ...thread, assignee_id: p.to };
  const [view] = await threadViews(ctx.q, ctx.orgId, [row], me);
  await ctx.emit('email.thread.delegate', p.threadId, {
    mailboxId: thread.mailbox_id,
    threadId: p.threadId,
    to: p.to,
    from: thread.assignee_id,
    ...(changed ? {} : { noop: true }),
  });
  return { thread: view, changed };
});

export const logDecision = handler(c.logDecision, async (ctx, p) => {
  const me = ctx.principal.id;
  const { thread } = await threadAccess(ctx.q, ctx.orgId, p.threadId, me);
  const decisionId = newId('mdec');
  const row = one(
    await ctx.q.query<{ created_at: string }>(
      `INSERT INTO email_decisions (org_id, decision_id, thread_id, kind, text, author_id, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING created_at`,
      [ctx.orgId, decisionId, p.threadId, p.kind, p.text, me, ctx.deps.clock.now().toISOString()],
    ),
  );
  await ctx.emit('email.decision.log', decisionId, {
    mailboxId: thread.mailbox_id,
    threadId: p.threadId,
    decisionId,
    kind: p.kind,
    textSha256: sha256Hex(p.text),
  });
  return { decision: { id: decisionId, kind: p.kind, text: p.text, authorId: me, createdAt: row.created_at }, changed: true };
});
