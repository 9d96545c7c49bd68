import { ask as askGateway } from '../../../ai-gateway/gateway.js';
import type { Claim } from '../../../ai-gateway/types.js';
import { DIRECTORY_ASK_NOTICE } from '../../../protocol/methods/directory/ask.js';
import { directory as c } from '../../../protocol/methods/directory/index.js';
import { handler } from '../../core/handler.js';
import { DIRECTORY_ASK_METHOD, DIRECTORY_READS } from './answerer.js';

/*
 * directory.ask (M on directory.read): the AI gateway answers in prepare, outside the call's transaction (a
 * model may take minutes); run appends directory.ask.answer with the audit seq, the status and how many records
 * the answer cites. Never the question or the answer: they name people.
 */

interface Asked {
  status: 'answered' | 'refused';
  answer: string | null;
  claims: Claim[];
  reason: string | null;
  reads: string[];
  provider: string;
  model: string;
  audit: { id: string; seq: number };
}

export const ask = handler(
  c.ask,
  async (ctx, _p, asked: Asked) => {
    const cited = new Set(asked.claims.flatMap((cl) => cl.cites.flatMap((x) => (x.kind === 'record' ? [x.id] : []))));
    await ctx.emit('directory.ask.answer', asked.audit.id, {
      auditId: asked.audit.id,
      auditSeq: asked.audit.seq,
      status: asked.status,
      cited: cited.size,
      claims: asked.claims.length,
    });
    return {
      status: asked.status,
      answer: asked.answer,
      claims: asked.claims,
      reason: asked.reason,
      notice: DIRECTORY_ASK_NOTICE,
      actOnWith: asked.reads.length ? asked.reads : DIRECTORY_READS.map((r) => `directory.${r}`),
      provider: asked.provider,
      model: asked.model,
      audit: asked.audit,
    };
  },
  {
    async prepare(ctx, p): Promise<Asked> {
      const outcome = await askGateway(
        { db: ctx.deps.db, ...ctx.deps.ai },
        {
          method: DIRECTORY_ASK_METHOD,
          orgId: ctx.orgId,
          requestId: ctx.requestId,
          actor: ctx.principal.id,
          keyId: ctx.principal.keyId,
          question: p.question,
          today: ctx.deps.clock.now().toISOString().slice(0, 10),
          reads: { readAs: (method, params) => ctx.readAs(method, params), q: ctx.db, orgId: ctx.orgId, scopes: ctx.principal.scopes },
        },
      );
      return {
        status: outcome.status,
        answer: outcome.answer,
        claims: outcome.claims,
        reason: outcome.reason,
        reads: outcome.reads,
        provider: outcome.provider,
        model: outcome.model,
        audit: { id: outcome.audit.id, seq: outcome.audit.seq },
      };
    },
  },
);
