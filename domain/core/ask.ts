import { ask as askGateway, type AskOutcome } from '../../ai-gateway/gateway.js';
import type { HandlerCtx, PrepareCtx } from './handler.js';

/*
 * How every family's ask reaches the AI gateway: as the caller, with its answerer (named by the method), its reads
 * run through the pipeline as the caller, and the org's business date. In a handler's run the reads share the call's
 * transaction; in prepare (M methods: the model is called outside any transaction) they run on the database.
 */

export interface AskAs {
  /** The registry method whose answerer answers (`files.ask`). */
  method: string;
  question: string;
  /** The reads the answerer may run, when narrower than the caller's (files.ask's fileIds): default ctx.readAs. */
  readAs?: (method: string, params: unknown) => Promise<unknown>;
}

export function askAsCaller(ctx: HandlerCtx | PrepareCtx, p: AskAs): Promise<AskOutcome> {
  return askGateway(
    { db: ctx.deps.db, ...ctx.deps.ai },
    {
      method: p.method,
      orgId: ctx.orgId,
      requestId: ctx.requestId,
      actor: ctx.principal.id,
      keyId: ctx.principal.keyId,
      question: p.question,
      today: ctx.deps.clock.now().toISOString().slice(0, 10),
      reads: {
        readAs: p.readAs ?? ((method, params) => ctx.readAs(method, params)),
        q: 'q' in ctx ? ctx.q : ctx.db,
        orgId: ctx.orgId,
        scopes: ctx.principal.scopes,
      },
    },
  );
}

/** The answer as every ask method returns it; each adds its own notice and actOnWith. */
export const answerOf = (o: Pick<AskOutcome, 'status' | 'answer' | 'claims' | 'reason' | 'provider' | 'model' | 'audit'>) => ({
  status: o.status,
  answer: o.answer,
  claims: o.claims,
  reason: o.reason,
  provider: o.provider,
  model: o.model,
  audit: { id: o.audit.id, seq: o.audit.seq },
});
