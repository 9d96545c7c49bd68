import { ToolError, type AskInput, type Draft, type Toolbox } from '../../../../ai-gateway/types.js';
import { activity } from './activity.js';
import { cash } from './cash.js';
import { classify, normalise, type Guard, type Intent } from './classify.js';
import { CAN_ANSWER, cannot, type AskContext } from './context.js';
import { expenses } from './expenses.js';
import { lookup } from './lookup.js';
import { payables } from './payables.js';
import { payroll } from './payroll.js';
import { periodFrom } from './period.js';
import { receivables } from './receivables.js';
import { tax } from './tax.js';

/*
 * books.ask's offline default (the `local` provider runs it: ai-gateway/local). Deterministic: classify the
 * question (classify.ts), plan the typed reads of that intent through the toolbox, compose an answer whose
 * every number is a figure recomputable from the records it cites (ai-gateway/local/compose.ts). Anything
 * else, and any request to break its rules, act, or look outside the caller's org, is `cannot_answer` with a
 * plain reason.
 */

const GUARD_REASONS: Record<Guard, string> = {
  rules:
    "I answer only from this org's books through the typed reads, under fixed rules that a question cannot change, suspend or reveal (this question asks me to ignore, override or disclose them, or to play another part).",
  internals:
    'I do not disclose SQL, the database, schemas, keys, passwords or other internals; I answer questions about the books themselves through the typed reads.',
  other_org: 'I can only see the books of the org whose key asked (the reads are bound to it), so I cannot answer about another org, company or workspace.',
  act: 'books.ask is read-only analysis: it cannot pay, approve, send, lodge, void, record or change anything. Use the books methods for acts (they hold for a human signature where the signature law requires one), and the typed reads for anything acted on.',
};

/** Classify, plan, compose. Exported for the evaluation tests. */
export async function answerQuestion(input: Pick<AskInput, 'question' | 'today'>, tools: Toolbox): Promise<Draft> {
  const intent = classify(input.question, input.today);
  const ctx: AskContext = { tools, today: input.today, question: input.question, q: normalise(input.question) };
  try {
    return await plan(ctx, intent);
  } catch (err) {
    if (err instanceof ToolError) return cannot(`A read this question needs was refused (${err.message}), so I cannot answer it.`);
    throw err;
  }
}

function plan(ctx: AskContext, intent: Intent): Promise<Draft> {
  if (intent.kind === 'guard') return Promise.resolve(cannot(`${GUARD_REASONS[intent.guard]} ${CAN_ANSWER}`));
  const period = periodFrom(ctx.q, ctx.today);
  if (period && period.from > ctx.today && intent.kind !== 'unknown') {
    return Promise.resolve(cannot(`The period asked about (${period.from} to ${period.to}) has not started yet, so the books hold nothing for it.`));
  }
  switch (intent.kind) {
    case 'lookup':
      return lookup(ctx, intent.ref);
    case 'receivables':
      return receivables(ctx, intent.focus);
    case 'payables':
      return payables(ctx, intent.focus);
    case 'tax':
      return tax(ctx, period);
    case 'payroll':
      return payroll(ctx, intent.period);
    case 'cash':
      return cash(ctx);
    case 'expenses':
      return expenses(ctx, intent.period, intent.top);
    case 'activity':
      return activity(ctx, intent.period, intent.limit);
    case 'unknown':
      return Promise.resolve(cannot(`I did not recognise this as one of the questions I can answer. ${CAN_ANSWER}`));
  }
}
