import { canonicalJson, sha256Hex } from '../../../protocol/hashing.js';
import { EMAIL_AI_NOTICE, emailAi as c } from '../../../protocol/methods/email/ai.js';
import type { Queryable } from '../../../db/types.js';
import { answerOf } from '../../core/ask.js';
import { handler } from '../../core/handler.js';
import { threadAccess } from '../access.js';
import { EMAIL_AI_METHODS } from './answerers.js';
import { emailClaims, quoted } from './compose.js';
import { summariseQuestion } from './local-summarise.js';
import { askWithin } from './reads.js';

/*
 * email.summarise (M): the AI gateway answers in prepare, outside the call's transaction (a model may take minutes;
 * PGlite has one connection); run stores the summary on the thread with the hash of what it was made from. The hash
 * covers the thread's mail received and sent (ids and versions): while it is unchanged the stored summary is the
 * answer, cached, without asking the AI again (changed:false, the event noop). The event carries ids, counts, the
 * hash and the audit seq: never a point or a question.
 */

interface Summary {
  points: { text: string; quote: string; cites: string[] }[];
  openQuestions: string[];
}

/** The state of the thread a summary is made from: its mail received and sent, by id and version. */
export async function threadHash(q: Queryable, orgId: string, threadId: string): Promise<string> {
  const rows = await q.query<{ message_id: string; version: number }>(
    `SELECT message_id, version FROM email_messages WHERE org_id = $1 AND thread_id = $2 AND state IN ('received', 'sent') ORDER BY sort_at, message_id`,
    [orgId, threadId],
  );
  return sha256Hex(canonicalJson(rows.map((r) => [r.message_id, Number(r.version)])));
}

async function stored(q: Queryable, orgId: string, threadId: string): Promise<{ summary: Summary | null; hash: string | null }> {
  const [row] = await q.query<{ summary: Summary | string | null; summary_hash: string | null }>(
    'SELECT summary, summary_hash FROM email_threads WHERE org_id = $1 AND thread_id = $2',
    [orgId, threadId],
  );
  const summary = typeof row?.summary === 'string' ? (JSON.parse(row.summary) as Summary) : (row?.summary ?? null);
  return { summary, hash: row?.summary_hash ?? null };
}

type Prepared = { hash: string; asked: (ReturnType<typeof answerOf> & { summary: Summary }) | null };

export const summarise = handler(
  c.summarise,
  async (ctx, p, prepared: Prepared) => {
    const { thread } = await threadAccess(ctx.q, ctx.orgId, p.threadId, ctx.principal.id, { lock: true });
    const now = await stored(ctx.q, ctx.orgId, p.threadId);
    const asked = prepared.asked;
    const base = { mailboxId: thread.mailbox_id, threadId: p.threadId, summaryHash: prepared.hash };
    // Unchanged since the stored summary (or another call stored this state, or a newer one, meanwhile): it stands.
    if (now.summary && (now.hash === prepared.hash || !asked)) {
      await ctx.emit('email.thread.summarise', p.threadId, {
        ...base,
        summaryHash: now.hash ?? prepared.hash,
        status: 'answered',
        cached: true,
        points: now.summary.points.length,
        openQuestions: now.summary.openQuestions.length,
        auditSeq: asked?.audit.seq ?? null,
        noop: true,
      });
      return { status: 'answered', ...now.summary, cached: true, refusal: null, notice: EMAIL_AI_NOTICE, audit: asked?.audit ?? null, changed: false };
    }
    if (!asked || asked.status === 'refused') {
      await ctx.emit('email.thread.summarise', p.threadId, { ...base, status: 'refused', cached: false, auditSeq: asked?.audit.seq ?? null, noop: true });
      return {
        status: 'refused',
        points: [],
        openQuestions: [],
        cached: false,
        refusal: asked?.reason ?? null,
        notice: EMAIL_AI_NOTICE,
        audit: asked?.audit ?? null,
        changed: false,
      };
    }
    await ctx.q.query('UPDATE email_threads SET summary = $3::jsonb, summary_hash = $4 WHERE org_id = $1 AND thread_id = $2', [
      ctx.orgId,
      p.threadId,
      JSON.stringify(asked.summary),
      prepared.hash,
    ]);
    await ctx.emit('email.thread.summarise', p.threadId, {
      ...base,
      status: 'answered',
      cached: false,
      points: asked.summary.points.length,
      openQuestions: asked.summary.openQuestions.length,
      auditSeq: asked.audit.seq,
    });
    return { status: 'answered', ...asked.summary, cached: false, refusal: null, notice: EMAIL_AI_NOTICE, audit: asked.audit, changed: true };
  },
  {
    async prepare(ctx, p): Promise<Prepared> {
      await threadAccess(ctx.db, ctx.orgId, p.threadId, ctx.principal.id);
      const hash = await threadHash(ctx.db, ctx.orgId, p.threadId);
      const now = await stored(ctx.db, ctx.orgId, p.threadId);
      if (now.summary && now.hash === hash) return { hash, asked: null };
      const scope = { threadId: p.threadId };
      const outcome = await askWithin(ctx, EMAIL_AI_METHODS.summarise, summariseQuestion(p.threadId), scope);
      const claims = emailClaims(outcome.claims);
      const summary: Summary = {
        points: claims.filter((x) => x.role === 'point' || x.role === 'content').map(quoted),
        openQuestions: claims.filter((x) => x.role === 'question').map((x) => x.quote),
      };
      return { hash, asked: { ...answerOf(outcome), summary } };
    },
  },
);
