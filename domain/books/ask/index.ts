import { ask as askContract, ASK_NOTICE } from '../../../protocol/methods/books/ask.js';
import { LEDGER_EVENTS_TOOL } from '../../../ai-gateway/ledger-events.js';
import { answerOf, askAsCaller } from '../../core/ask.js';
import { handler } from '../../core/handler.js';
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
  const outcome = await askAsCaller(ctx, { method: 'books.ask', question: p.question });
  return { ...answerOf(outcome), notice: ASK_NOTICE, actOnWith: actOnWith(outcome.reads) };
});

export const askHandlers = { ask };
