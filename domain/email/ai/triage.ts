import { ApiError, badRequest } from '../../../protocol/errors.js';
import { EMAIL_AI_NOTICE, emailAi as c, type TRIAGE_CATEGORIES, type TRIAGE_PRIORITIES } from '../../../protocol/methods/email/ai.js';
import type { Queryable } from '../../../db/types.js';
import { answerOf } from '../../core/ask.js';
import { handler, type HandlerCtx, type PrepareCtx } from '../../core/handler.js';
import { mailboxAccess, requireRole, roleIn, threadAccess } from '../access.js';
import { folderByRole } from '../folders.js';
import { threadViews, type ThreadRow } from '../model.js';
import { EMAIL_AI_METHODS } from './answerers.js';
import { emailClaims, quoted } from './compose.js';
import { triageQuestion } from './local-triage.js';
import { askWithin } from './reads.js';

/*
 * email.triage and email.triageNow (M): the AI gateway triages in prepare, outside the call's transaction; run stores
 * what apply asks for. Triage sets the thread's category, priority and needsReply, and remembers up to which message
 * it looked (triaged_at), so the pass takes only threads with newer mail. It never moves mail: not to Spam, not to
 * Trash, not anywhere (exo#47: mail must not be able to hide mail). An assignee given with apply follows
 * email.delegate's rule: an agent does not take a thread another member answers.
 */

type Category = (typeof TRIAGE_CATEGORIES)[number];
type Priority = (typeof TRIAGE_PRIORITIES)[number];

interface Verdict {
  category: Category;
  priority: Priority;
  needsReply: boolean;
}

type Asked = ReturnType<typeof answerOf> & { verdict: Verdict | null; reasons: ReturnType<typeof reasonsOf>; seenAt: string };

function reasonsOf(claims: ReturnType<typeof emailClaims>) {
  return claims.flatMap((x) =>
    x.role === 'category' || x.role === 'priority' || x.role === 'needs_reply' || x.role === 'content' ? [{ about: x.role, ...quoted(x) }] : [],
  );
}

/** Triage one thread through the gateway, as the caller (prepare). */
async function triageOne(ctx: PrepareCtx, method: string, thread: Pick<ThreadRow, 'thread_id' | 'last_message_at'>): Promise<Asked> {
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
async function store(
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

/** With apply and an assignee: who answers, as email.delegate decides it. */
async function assign(ctx: HandlerCtx, row: ThreadRow, role: Parameters<typeof requireRole>[0], to: string): Promise<boolean> {
  if ((await roleIn(ctx.q, ctx.orgId, row.mailbox_id, to)) === null) {
    throw badRequest('assignee', `${to} is not a member of mailbox ${row.mailbox_id}: assign one of its members (email.mailboxes lists them)`);
  }
  if (row.assignee_id !== null && row.assignee_id !== ctx.principal.id)
    requireRole(role, ['owner', 'reviewer', 'member'], 'hand on a thread another member answers');
  if (row.assignee_id === to) return false;
  await ctx.q.query('UPDATE email_threads SET assignee_id = $3 WHERE org_id = $1 AND thread_id = $2', [ctx.orgId, row.thread_id, to]);
  return true;
}

export const triage = handler(
  c.triage,
  async (ctx, p, asked: Asked) => {
    const { thread, role } = await threadAccess(ctx.q, ctx.orgId, p.threadId, ctx.principal.id, { lock: true });
    const v = asked.verdict;
    let changed = false;
    let assigned = false;
    if (p.apply && v) {
      changed = await store(ctx.q, ctx.orgId, thread, v, asked.seenAt);
      if (p.assignee !== undefined) assigned = await assign(ctx, thread, role, p.assignee);
    }
    const { thread: after } = await threadAccess(ctx.q, ctx.orgId, p.threadId, ctx.principal.id);
    const [view] = await threadViews(ctx.q, ctx.orgId, [after], ctx.principal.id);
    const any = changed || assigned;
    await ctx.emit('email.thread.triage', p.threadId, {
      mailboxId: thread.mailbox_id,
      threadId: p.threadId,
      status: asked.status,
      category: v?.category ?? null,
      priority: v?.priority ?? null,
      needsReply: v?.needsReply ?? null,
      reasons: asked.reasons.length,
      applied: p.apply && v !== null,
      assigned,
      auditSeq: asked.audit.seq,
      ...(any ? {} : { noop: true }),
    });
    return {
      status: asked.status,
      category: v?.category ?? null,
      priority: v?.priority ?? null,
      needsReply: v?.needsReply ?? null,
      reasons: asked.reasons,
      applied: p.apply && v !== null,
      thread: view,
      refusal: asked.reason,
      notice: EMAIL_AI_NOTICE,
      audit: asked.audit,
      changed: any,
    };
  },
  {
    async prepare(ctx, p): Promise<Asked> {
      if (p.assignee !== undefined && !p.apply) throw badRequest('assignee', 'only with apply: true (triage stores nothing without it)');
      const { thread } = await threadAccess(ctx.db, ctx.orgId, p.threadId, ctx.principal.id);
      return triageOne(ctx, EMAIL_AI_METHODS.triage, thread);
    },
  },
);

interface Pass {
  asked: (Asked & { threadId: string })[];
  remaining: boolean;
  stoppedBy: 'budget' | null;
}

export const triageNow = handler(
  c.triageNow,
  async (ctx, p, pass: Pass) => {
    const { mailbox } = await mailboxAccess(ctx.q, ctx.orgId, p.mailboxId, ctx.principal.id);
    let triaged = 0;
    let updated = 0;
    for (const a of pass.asked) {
      if (!a.verdict) continue;
      const [row] = await ctx.q.query<Pick<ThreadRow, 'thread_id' | 'mailbox_id' | 'triage_category' | 'triage_priority' | 'needs_reply'>>(
        `SELECT thread_id, mailbox_id, triage_category, triage_priority, needs_reply FROM email_threads WHERE org_id = $1 AND thread_id = $2 FOR UPDATE`,
        [ctx.orgId, a.threadId],
      );
      // Moved to another mailbox meanwhile: not this pass's any more.
      if (!row || row.mailbox_id !== mailbox.mailbox_id) continue;
      triaged += 1;
      if (await store(ctx.q, ctx.orgId, row, a.verdict, a.seenAt)) updated += 1;
    }
    const refused = pass.asked.filter((a) => !a.verdict).length;
    await ctx.emit('email.mailbox.triage', p.mailboxId, {
      mailboxId: p.mailboxId,
      considered: pass.asked.length,
      triaged,
      updated,
      refused,
      remaining: pass.remaining,
      stoppedBy: pass.stoppedBy,
      auditSeqs: pass.asked.map((a) => a.audit.seq),
      ...(triaged === 0 ? { noop: true } : {}),
    });
    return {
      threads: pass.asked.map((a) => ({
        threadId: a.threadId,
        status: a.verdict ? a.status : ('refused' as const),
        category: a.verdict?.category ?? null,
        priority: a.verdict?.priority ?? null,
        needsReply: a.verdict?.needsReply ?? null,
        auditSeq: a.audit.seq,
      })),
      triaged,
      updated,
      refused,
      remaining: pass.remaining,
      stoppedBy: pass.stoppedBy,
      changed: triaged > 0,
    };
  },
  {
    async prepare(ctx, p): Promise<Pass> {
      await mailboxAccess(ctx.db, ctx.orgId, p.mailboxId, ctx.principal.id);
      const inbox = await folderByRole(ctx.db, ctx.orgId, p.mailboxId, 'inbox');
      // The Inbox walked newest first down its (mailbox, folder, last activity) index; triaged_at older than the
      // thread's last mail means mail came after the last triage.
      const waiting = await ctx.db.query<Pick<ThreadRow, 'thread_id' | 'last_message_at'>>(
        `SELECT t.thread_id, t.last_message_at FROM email_thread_folders tf JOIN email_threads t ON t.org_id = tf.org_id AND t.thread_id = tf.thread_id
          WHERE tf.org_id = $1 AND tf.mailbox_id = $2 AND tf.folder_id = $3 AND (t.triaged_at IS NULL OR t.triaged_at < t.last_message_at)
          ORDER BY tf.last_message_at DESC, tf.thread_id LIMIT $4`,
        [ctx.orgId, p.mailboxId, inbox.folder_id, p.limit + 1],
      );
      const asked: Pass['asked'] = [];
      let stoppedBy: Pass['stoppedBy'] = null;
      for (const t of waiting.slice(0, p.limit)) {
        try {
          asked.push({ ...(await triageOne(ctx, EMAIL_AI_METHODS.triageNow, t)), threadId: t.thread_id });
        } catch (err) {
          // The budget ran out during the pass: keep what was triaged; with nothing triaged, the call is refused.
          if (!(err instanceof ApiError) || err.code !== 'RATE_LIMITED' || asked.length === 0) throw err;
          stoppedBy = 'budget';
          break;
        }
      }
      return { asked, remaining: waiting.length > asked.length, stoppedBy };
    },
  },
);
