import type { Answerer, GroundingRules } from '../../../ai-gateway/answerer.js';
import { LEDGER_EVENTS_READ } from '../../../ai-gateway/ledger-events.js';
import type { Citation, ReadTool } from '../../../ai-gateway/types.js';
import { books } from '../../../protocol/methods/books/index.js';
import { DraftSchema } from '../../../protocol/methods/books/ask.js';
import { answerQuestion } from './local/index.js';
import { systemPrompt } from './prompt.js';

/** The books R methods a provider may call (books.ask itself is not one of them). */
export const BOOKS_READS = ['invoices', 'bills', 'accounts', 'reports', 'journals', 'feedLines', 'assets', 'taxObligations'] as const;

export const READ_TOOLS: readonly ReadTool[] = [
  ...BOOKS_READS.map((name) => ({ name: `books.${name}`, description: books[name].summary, params: books[name].params })),
  LEDGER_EVENTS_READ,
];

/**
 * Besides records (an `id`) and ledger events: a chart account from books.accounts (its balance fields) and a
 * report line of books.reports (an `account`) are `account` citations. Journal lines also carry `account`,
 * but only report lines and chart rows stand for an account's figures.
 */
export const BOOKS_GROUNDING: GroundingRules = {
  citable(tool, node): Citation[] {
    if (tool === 'books.accounts' && typeof node.code === 'string') return [{ kind: 'account', code: node.code }];
    if (tool === 'books.reports' && typeof node.account === 'string') return [{ kind: 'account', code: node.account }];
    return [];
  },
};

/** books.ask: the books reads and ledger activity, account citations, the books intents offline. */
export const BOOKS_ANSWERER: Answerer = {
  method: 'books.ask',
  tools: READ_TOOLS,
  grounding: BOOKS_GROUNDING,
  local: answerQuestion,
  instructions: systemPrompt,
  draftSchema: DraftSchema,
};
