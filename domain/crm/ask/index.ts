import type { Answerer } from '../../../ai-gateway/answerer.js';
import { crm as c, CRM_ASK_NOTICE } from '../../../protocol/methods/crm/index.js';
import { askAsCaller } from '../../core/ask.js';
import { handler } from '../../core/handler.js';
import { CRM_ASK_ANSWERER, CRM_ASK_METHOD, CRM_READS } from './answerer.js';

/*
 * crm.ask (R on crm.read): the AI gateway answers with the crm answerer (answerer.ts) from the crm reads run as the
 * caller plus ledger.events (as books.ask), and audits the ask in the org's AI audit chain (question hash, reads,
 * verdict), no ledger event. An R call holds no transaction, so the model is called in run. A spent budget is
 * RATE_LIMITED.
 */

/** What to read before acting on an answer: the reads it came from; GET /events for ledger activity. */
const actOnWith = (reads: string[]): string[] => (reads.length ? reads.map((r) => (r === 'ledger.events' ? 'GET /api/v1/events' : r)) : CRM_READS);

export const ask = handler(c.ask, async (ctx, p) => {
  const outcome = await askAsCaller(ctx, { method: CRM_ASK_METHOD, question: p.question });
  return {
    status: outcome.status,
    answer: outcome.answer,
    claims: outcome.claims.map((claim) => ({
      text: claim.text,
      cites: claim.cites.map((x) => (x.kind === 'record' ? x.id : x.kind === 'event' ? `event:${x.seq}` : `account:${x.code}`)),
    })),
    reason: outcome.reason,
    notice: CRM_ASK_NOTICE,
    actOnWith: actOnWith(outcome.reads),
    provider: outcome.provider,
    model: outcome.model,
    auditSeq: outcome.audit.seq,
  };
});

/** The crm family's answerers (the descriptor's `answerers`). */
export const CRM_ANSWERERS: readonly Answerer[] = [CRM_ASK_ANSWERER];
