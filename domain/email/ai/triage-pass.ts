import { ApiError } from '../../../protocol/errors.js';
import type { Queryable } from '../../../db/types.js';
import type { PrepareCtx } from '../../core/handler.js';
import { folderByRole } from '../folders.js';
import type { ThreadRow } from '../model.js';
import { EMAIL_AI_METHODS } from './answerers.js';
import { store, triageOne, type Asked } from './triage-one.js';

/*
 * The triage pass over a mailbox's Inbox: email.triageNow runs it when called, the background job (background.ts)
 * after mail arrives. Asked outside any transaction (passOver), stored in one (storePass), with one event
 * `email.mailbox.triage` whose payload passEvent shapes: ids, counts and the AI audit seqs.
 */

export interface Pass {
  asked: (Asked & { threadId: string })[];
  remaining: boolean;
  stoppedBy: 'budget' | null;
}

/** Triage, as ctx's principal, up to `limit` Inbox threads whose mail is newer than their last triage, newest first. */
export async function passOver(ctx: PrepareCtx, mailboxId: string, limit: number): Promise<Pass> {
  const inbox = await folderByRole(ctx.db, ctx.orgId, mailboxId, 'inbox');
  // The Inbox walked newest first down its (mailbox, folder, last activity) index; triaged_at older than the
  // thread's last mail means mail came after the last triage.
  const waiting = await ctx.db.query<Pick<ThreadRow, 'thread_id' | 'last_message_at'>>(
    `SELECT t.thread_id, t.last_message_at FROM email_thread_folders tf JOIN email_threads t ON t.org_id = tf.org_id AND t.thread_id = tf.thread_id
      WHERE tf.org_id = $1 AND tf.mailbox_id = $2 AND tf.folder_id = $3 AND (t.triaged_at IS NULL OR t.triaged_at < t.last_message_at)
      ORDER BY tf.last_message_at DESC, tf.thread_id LIMIT $4`,
    [ctx.orgId, mailboxId, inbox.folder_id, limit + 1],
  );
  const asked: Pass['asked'] = [];
  let stoppedBy: Pass['stoppedBy'] = null;
  for (const t of waiting.slice(0, limit)) {
    try {
      asked.push({ ...(await triageOne(ctx, EMAIL_AI_METHODS.triageNow, t)), threadId: t.thread_id });
    } catch (err) {
      // The budget ran out during the pass: keep what was triaged; with nothing triaged, the pass is refused.
      if (!(err instanceof ApiError) || err.code !== 'RATE_LIMITED' || asked.length === 0) throw err;
      stoppedBy = 'budget';
      break;
    }
  }
  return { asked, remaining: waiting.length > asked.length, stoppedBy };
}

export interface Stored {
  triaged: number;
  updated: number;
  refused: number;
}

/** Store the pass's verdicts on the threads still in the mailbox (each locked first), in q's transaction. */
export async function storePass(q: Queryable, orgId: string, mailboxId: string, pass: Pass): Promise<Stored> {
  let triaged = 0;
  let updated = 0;
  for (const a of pass.asked) {
    if (!a.verdict) continue;
    const [row] = await q.query<Pick<ThreadRow, 'thread_id' | 'mailbox_id' | 'triage_category' | 'triage_priority' | 'needs_reply'>>(
      `SELECT thread_id, mailbox_id, triage_category, triage_priority, needs_reply FROM email_threads WHERE org_id = $1 AND thread_id = $2 FOR UPDATE`,
      [orgId, a.threadId],
    );
    // Moved to another mailbox meanwhile: not this pass's any more.
    if (!row || row.mailbox_id !== mailboxId) continue;
    triaged += 1;
    if (await store(q, orgId, row, a.verdict, a.seenAt)) updated += 1;
  }
  return { triaged, updated, refused: pass.asked.filter((a) => !a.verdict).length };
}

/** The payload of the pass's one event (`email.mailbox.triage`). */
export function passEvent(mailboxId: string, pass: Pass, s: Stored): Record<string, unknown> {
  return {
    mailboxId,
    considered: pass.asked.length,
    triaged: s.triaged,
    updated: s.updated,
    refused: s.refused,
    remaining: pass.remaining,
    stoppedBy: pass.stoppedBy,
    auditSeqs: pass.asked.map((a) => a.audit.seq),
    ...(s.triaged === 0 ? { noop: true } : {}),
  };
}
