import type { HandlerCtx } from '../../core/handler.js';
import { mailboxAccess } from '../access.js';
import { createDraft } from '../drafts.js';
import type { Addr } from '../model.js';
import { loadOutgoing } from './outgoing.js';
import { submit } from './submit.js';

/*
 * Mail with a calendar part (docs/families/calendar.md, "Invitations and the feed"): another family's call sends it
 * as the caller, from a mailbox the caller is a member of, through the same draft, gate, review and delivery as
 * email.send, inside that call's transaction. So an agent's invitation to an outsider is held for a human of the
 * mailbox (after approval exactly one message leaves) and a human's leaves after the mailbox's undo window. The
 * calling family appends its own one event for the call; this appends none.
 */

export interface CalendarMail {
  to: Addr[];
  subject: string;
  text: string;
  calendar: { method: 'REQUEST' | 'CANCEL' | 'REPLY'; ics: string };
}

export type CalendarSent =
  { status: 'scheduled' | 'held_for_review'; messageId: string; mailboxId: string; approvalId: string | null } | { status: 'no_mailbox' };

/** The caller's mailbox mail goes out from: one it is a member of, owners' and agents' own seats first, then by id. */
export async function senderMailbox(ctx: HandlerCtx): Promise<string | null> {
  const [row] = await ctx.q.query<{ mailbox_id: string }>(
    `SELECT mailbox_id FROM email_mailbox_members WHERE org_id = $1 AND principal_id = $2
      ORDER BY CASE role WHEN 'owner' THEN 0 WHEN 'agent' THEN 0 WHEN 'member' THEN 1 ELSE 2 END, mailbox_id LIMIT 1`,
    [ctx.orgId, ctx.principal.id],
  );
  return row?.mailbox_id ?? null;
}

/** Draft and submit one calendar message as the caller; `no_mailbox` when the caller has none to send from. */
export async function sendCalendarMail(ctx: HandlerCtx, m: CalendarMail): Promise<CalendarSent> {
  const mailboxId = await senderMailbox(ctx);
  if (!mailboxId) return { status: 'no_mailbox' };
  const made = await createDraft(ctx, { mailboxId, to: m.to, subject: m.subject, text: m.text });
  await ctx.q.query('UPDATE email_messages SET calendar_method = $3, calendar_ics = $4 WHERE org_id = $1 AND message_id = $2', [
    ctx.orgId,
    made.messageId,
    m.calendar.method,
    m.calendar.ics,
  ]);
  const row = await loadOutgoing(ctx.q, ctx.orgId, made.messageId, { lock: true });
  const { mailbox } = await mailboxAccess(ctx.q, ctx.orgId, mailboxId, ctx.principal.id);
  // The calendar decides what is sent again (a new SEQUENCE is a new message): the duplicate guard stays out.
  const s = await submit(ctx, row, mailbox, { allowDuplicate: true, files: [], replyDmarc: null });
  return { status: s.status, messageId: made.messageId, mailboxId, approvalId: s.review?.approvalId ?? null };
}
