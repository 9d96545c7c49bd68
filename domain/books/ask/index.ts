import { ask as askContract, ASK_NOTICE } from '../../../protocol/methods/books/ask.js';
import { ask as askGateway } from '../../../ai-gateway/gateway.js';
import { LEDGER_EVENTS_TOOL } from '../../../ai-gateway/ledger-events.js';
import { handler } from '../../core/handler.js';
import { today } from '../dates.js';
import { BOOKS_READS } from './answerer.js';

/** What to read before acting on an answer: the reads it came from; GET /events for ledger activity. */
function actOnWith(reads: string[]): string[] {
  const named = reads.map((r) => (r === LEDGER_EVENTS_TOOL ? 'GET /api/v1/events' : r));
  return named.length ? named : BOOKS_READS.map((r) => `books.${r}`);
}

/**
 * books.ask (R): the AI gateway answers with the books answerer (./answerer.ts) from the typed reads, run as
 * the caller through the pipeline, and audits the ask in the org's AI audit chain (not the ledger: an R
 * method appends no event). An R call holds no transaction, so the model is called in run.
 */
export const ask = handler(askContract.ask, async (ctx, p) => {
  const outcome = await askGateway(
    { db: ctx.deps.db, ...ctx.deps.ai },
    {
      method: 'books.ask',
      orgId: ctx.orgId,
      requestId: ctx.requestId,
      actor: ctx.principal.id,
      keyId: ctx.principal.keyId,
      question: p.question,
      today: today(ctx.deps),
      reads: { readAs: (method, params) => ctx.readAs(method, params), q: ctx.q, orgId: ctx.orgId, scopes: ctx.principal.scopes },
    },
  );
  return {
    status: outcome.status,
    answer: outcome.answer,
    claims: outcome.claims,
    reason: outcome.reason,
    notice: ASK_NOTICE,
    actOnWith: actOnWith(outcome.reads),
    provider: outcome.provider,
    model: outcome.model,
    audit: { id: outcome.audit.id, seq: outcome.audit.seq },
  };
});

export const askHandlers = { ask };
