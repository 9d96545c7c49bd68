import type { TRIAGE_CATEGORIES, TRIAGE_PRIORITIES } from '../../../protocol/methods/email/ai.js';
import type { Queryable } from '../../../db/types.js';
import { answerOf } from '../../core/ask.js';
import type { PrepareCtx } from '../../core/handler.js';
import type { ThreadRow } from '../model.js';
import { emailClaims, quoted } from './compose.js';
import { triageQuestion } from './local-triage.js';
import { askWithin } from './reads.js';

/*
 * One thread's triage: asked of the AI gateway as the caller (outside any transaction), and stored on the thread. What
 * email.triage, email.triageNow and the background pass (background.ts) share. Triage sets the thread's category,
 * priority and needsReply, and remembers up to which message it looked (triaged_at), so a pass takes only threads
 * with newer mail. It never moves mail (exo#47: mail must not be able to hide mail).
 */

type Category = (typeof TRIAGE_CATEGORIES)[number];
type Priority = (typeof TRIAGE_PRIORITIES)[number];

export interface Verdict {
  category: Category;
  priority: Priority;
  needsReply: boolean;
}

export type Asked = ReturnType<typeof answerOf> & { verdict: Verdict | null; reasons: ReturnType<typeof reasonsOf>; seenAt: string };

function reasonsOf(claims: ReturnType<typeof emailClaims>) {
  return claims.flatMap((x) =>
    x.role === 'category' || x.role === 'priority' || x.role === 'needs_reply' || x.role === 'content' ? [{ about: x.role, ...quoted(x) }] : [],
  );
}

/** Triage one thread through the gateway, as the caller (prepare). */
export async function triageOne(ctx: PrepareCtx, method: string, thread: Pick<ThreadRow, 'thread_id' | 'last_message_at'>): Promise<Asked> {
  const scope = { threadId: thread.thread_id };
  const outcome = await askWithin(ctx, method, triageQuestion(thread.thread_id), scope);
  const claims = emailClaims(outcome.claims);
  const value = (role: string) => claims.find((x) => x.role === role)?.value;
  const category = value('category') as Category | undefined;
  const priority = value('priority') as Priority | undefined;
  const needs = value('needs_reply');
  const verdict = outcome.status === 'answered' && category && priority && needs ? { category, priority, needsReply: needs === 'yes' } : null;
  return { ...answerOf(outcome), verdict, reasons: reasonsOf(claims), seenAt: new Date(thread.last_message_at).toISOString() };
}

/** Store a verdict on the thread: whether its category, priority or needsReply changed. */
export async function store(
  q: Queryable,
  orgId: string,
  row: Pick<ThreadRow, 'thread_id' | 'triage_category' | 'triage_priority' | 'needs_reply'>,
  v: Verdict,
  seenAt: string,
): Promise<boolean> {
  const changed = row.triage_category !== v.category || row.triage_priority !== v.priority || row.needs_reply !== v.needsReply;
  await q.query(
    `UPDATE email_threads SET triage_category = $3, triage_priority = $4, needs_reply = $5, triaged_at = GREATEST(coalesce(triaged_at, $6::timestamptz), $6::timestamptz)
      WHERE org_id = $1 AND thread_id = $2`,
    [orgId, row.thread_id, v.category, v.priority, v.needsReply, seenAt],
  );
  return changed;
}
