import { notFound } from '../../../protocol/errors.js';
import type { Queryable } from '../../../db/types.js';
import { folderByRole, refreshThreads } from '../folders.js';
import { MESSAGE_COLUMNS, messageViews } from '../model.js';
import type { RedirectRow } from './content.js';

/*
 * Outgoing mail moves through states: draft -> held (a human decides) or scheduled (the undo window) -> sent, and
 * back to draft on undoSend, return or expiry. Draft, held and scheduled mail sits in Drafts; sent mail in Sent. A
 * redirect is never a draft: taken back, it is discarded.
 */

export type OutgoingState = 'draft' | 'held' | 'scheduled' | 'sent' | 'discarded';

export const OUTGOING_COLUMNS = `${MESSAGE_COLUMNS}, m.redirect_of, m.resent_to, m.calendar_method, m.calendar_ics`;

/** A message of the org with its redirect columns (the caller checked access), or NOT_FOUND. */
export async function loadOutgoing(q: Queryable, orgId: string, messageId: string, opts: { lock?: boolean } = {}): Promise<RedirectRow> {
  const [row] = await q.query<RedirectRow>(
    `SELECT ${OUTGOING_COLUMNS} FROM email_messages m WHERE m.org_id = $1 AND m.message_id = $2${opts.lock ? ' FOR UPDATE' : ''}`,
    [orgId, messageId],
  );
  if (!row) throw notFound(`message ${messageId}`);
  return row;
}

/** Move the message to `state` (and the folder that state lives in), keeping its thread's folder rows right. */
export async function setState(q: Queryable, orgId: string, row: RedirectRow, state: OutgoingState, now: string): Promise<void> {
  // A taken-back redirect is discarded rather than left as a draft nobody can send.
  const next = state === 'draft' && row.redirect_of ? 'discarded' : state;
  const folder = await folderByRole(q, orgId, row.mailbox_id, next === 'sent' ? 'sent' : 'drafts');
  await q.query(
    `UPDATE email_messages SET state = $3, folder_id = $4, sort_at = $5, updated_at = $5,
            sent_at = CASE WHEN $3 = 'sent' THEN $5::timestamptz ELSE NULL END,
            discarded_at = CASE WHEN $3 = 'discarded' THEN $5::timestamptz ELSE NULL END
      WHERE org_id = $1 AND message_id = $2`,
    [orgId, row.message_id, next, folder.folder_id, now],
  );
  row.state = next;
  row.folder_id = folder.folder_id;
  await refreshThreads(q, orgId, [row.thread_id]);
}

/** The message as `principalId` reads it (email.message's shape). */
export async function viewAs(q: Queryable, orgId: string, messageId: string, principalId: string) {
  const row = await loadOutgoing(q, orgId, messageId);
  return (await messageViews(q, orgId, [row], principalId))[0];
}
