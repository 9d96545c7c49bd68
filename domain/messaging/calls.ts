import type { Queryable } from '../../db/types.js';
import { MESSAGE_COLUMNS, type MessageRow } from './model.js';

/*
 * What calling does to message rows beyond posting (post.ts): a call's root message turns into its summary when
 * the call ends, and the in-call chat finds a retried message by its idempotencyId.
 */

/**
 * The root message of an ended call reads as its summary (duration, participant count; no names). A root message
 * someone deleted stays a tombstone. Not an edit: no revision is kept and editedAt stays as it was.
 */
export async function summariseCallMessage(q: Queryable, orgId: string, messageId: string, text: string): Promise<boolean> {
  const rows = await q.query(`UPDATE messages SET text = $3 WHERE org_id = $1 AND message_id = $2 AND kind = 'call' AND status = 'posted' RETURNING 1`, [
    orgId,
    messageId,
    text,
  ]);
  return rows.length > 0;
}

/** The message a channel already holds under this idempotencyId (calling.chat's and messaging.send's dedupe key). */
export async function messageByIdempotencyId(q: Queryable, orgId: string, channelId: string, idempotencyId: string): Promise<MessageRow | null> {
  const [row] = await q.query<MessageRow>(`SELECT ${MESSAGE_COLUMNS} FROM messages m WHERE m.org_id = $1 AND m.channel_id = $2 AND m.idempotency_id = $3`, [
    orgId,
    channelId,
    idempotencyId,
  ]);
  return row ?? null;
}

/** "Call ended after 12 min with 4 participants": the words of a call's summary. */
export function callSummaryText(durationMs: number, participantCount: number): string {
  const minutes = Math.round(durationMs / 60_000);
  const duration =
    minutes < 1 ? 'less than a minute' : minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
  return `Call ended after ${duration} with ${participantCount} participant${participantCount === 1 ? '' : 's'}`;
}
