import { badRequest } from '../../../protocol/errors.js';
import { EMAIL_AI_NOTICE, emailAi as c } from '../../../protocol/methods/email/ai.js';
import { handler, type HandlerCtx } from '../../core/handler.js';
import { mailboxAccess, requireRole, roleIn, threadAccess } from '../access.js';
import { threadViews, type ThreadRow } from '../model.js';
import { EMAIL_AI_METHODS } from './answerers.js';
import { store, triageOne, type Asked } from './triage-one.js';
import { passEvent, passOver, storePass, type Pass } from './triage-pass.js';

/*
 * email.triage and email.triageNow (M): the AI gateway triages in prepare, outside the call's transaction
 * (triage-one.ts, triage-pass.ts); run stores what apply asks for. It never moves mail: not to Spam, not to Trash,
 * not anywhere (exo#47: mail must not be able to hide mail). An assignee given with apply follows email.delegate's
 * rule: an agent does not take a thread another member answers. The same pass runs by itself after mail arrives
 * where the mailbox turned it on (background.ts).
 */

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

export const triageNow = handler(
  c.triageNow,
  async (ctx, p, pass: Pass) => {
    await mailboxAccess(ctx.q, ctx.orgId, p.mailboxId, ctx.principal.id);
    const stored = await storePass(ctx.q, ctx.orgId, p.mailboxId, pass);
    await ctx.emit('email.mailbox.triage', p.mailboxId, passEvent(p.mailboxId, pass, stored));
    const { triaged, updated, refused } = stored;
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
      return passOver(ctx, p.mailboxId, p.limit);
    },
  },
);
