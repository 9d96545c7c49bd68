import type { Queryable } from '../../db/types.js';
import { newId } from '../core/ids.js';
import type { MessageKind } from './model.js';

/*
 * Posting a message: the one place a message takes its seq. The channel row is locked by the increment of its
 * last_seq, so concurrent posts to one channel get distinct, gap-free seqs in commit order. No access check and
 * no event here: callers (messaging.send, createPoll, calling) check access first and emit their own event.
 */

export interface PostInput {
  channelId: string;
  authorId: string;
  text: string;
  kind?: MessageKind;
  /** The thread's root (the caller checked it is a posted root of this channel). */
  threadId?: string | null;
  alsoToChannel?: boolean;
  mentions?: readonly string[];
  mentionChannel?: boolean;
  fileIds?: readonly string[];
  artifactIds?: readonly string[];
  refs?: readonly string[];
  /** messaging.send's dedupe key and the hash of the params it came with. */
  idempotencyId?: string | null;
  paramsHash?: string | null;
  now: Date;
}

/** Take the channel's next seq under its row lock and insert the posted message. */
export async function postMessage(q: Queryable, orgId: string, input: PostInput): Promise<{ messageId: string; seq: number }> {
  const seq = await nextSeq(q, orgId, input.channelId);
  const messageId = newId('msg');
  const at = input.now.toISOString();
  await q.query(
    `INSERT INTO messages (org_id, message_id, channel_id, seq, author_id, status, text, thread_id, also_to_channel, mentions,
                           mention_channel, file_ids, artifact_ids, refs, kind, idempotency_id, params_hash, posted_at, created_at)
     VALUES ($1, $2, $3, $4, $5, 'posted', $6, $7, $8, $9::text[], $10, $11::text[], $12::text[], $13::text[], $14, $15, $16, $17, $17)`,
    [
      orgId,
      messageId,
      input.channelId,
      seq,
      input.authorId,
      input.text,
      input.threadId ?? null,
      input.alsoToChannel ?? false,
      [...(input.mentions ?? [])],
      input.mentionChannel ?? false,
      [...(input.fileIds ?? [])],
      [...(input.artifactIds ?? [])],
      [...(input.refs ?? [])],
      input.kind ?? 'message',
      input.idempotencyId ?? null,
      input.paramsHash ?? null,
      at,
    ],
  );
  return { messageId, seq };
}

/**
 * The channel's next seq, taken under its row lock (held to commit). Also for a scheduled message's job, which
 * posts an existing row: it sets the seq this returns.
 */
export async function nextSeq(q: Queryable, orgId: string, channelId: string): Promise<number> {
  const [row] = await q.query<{ last_seq: string | number }>(
    'UPDATE channels SET last_seq = last_seq + 1 WHERE org_id = $1 AND channel_id = $2 RETURNING last_seq',
    [orgId, channelId],
  );
  if (!row) throw new Error(`postMessage: no channel ${channelId}`);
  return Number(row.last_seq);
}
