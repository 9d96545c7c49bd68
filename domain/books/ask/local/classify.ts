import { periodFrom, type Period } from './period.js';

/*
 * The local answerer's intent classifier: plain, ordered pattern rules over the lower-cased question. No
 * scoring model, no randomness: the same question always gets the same plan.
 *
 * 1. Guards, first match wins (each is a refusal; the answerer never reads anything for them):
 *    - `rules`: the question asks it to ignore, override or reveal its rules or prompt, or to role-play
 *      ("ignore your instructions", "you are now", "system prompt", "developer mode"), also when buried inside an
 *      otherwise ordinary question (prompt injection);
 *    - `internals`: it asks for SQL, the database, schemas, keys, passwords or tokens;
 *    - `other_org`: it asks about another org, company, tenant or workspace (the reads only see the caller's);
 *    - `act`: it asks for an act: a clause starting with pay, approve, send, void, lodge, sign, delete, record,
 *      create, chase, release, hold, transfer, reverse, post, mark, cancel, refund, reconcile... (books.ask is
 *      analysis; acts go through the books methods and their signature holds).
 * 2. A named record: an invoice number (`INV-0003`, `invoice #3`), a row id (`inv_…`, `bill_…`) or a document
 *    reference with letters and digits (`PW-7781`, `RENT-2026-11`) -> `lookup` (what happened to it).
 * 3. Topic rules, each a list of weighted patterns; the intent with the highest total wins, ties going to the
 *    earlier intent in TOPICS: receivables, payables, tax, payroll, cash, expenses, activity.
 * 4. Nothing matched -> `unknown` (a plain refusal naming what it can answer).
 */

export type Guard = 'rules' | 'internals' | 'other_org' | 'act';

export interface RecordRef {
  /** What the question named, as written (`INV-0003`, `bill_…`, `PW-7781`). */
  text: string;
  /** `invoice` for an invoice number or inv_ id, `bill` for a bill_ id, `any` for a reference to search for. */
  kind: 'invoice' | 'bill' | 'any';
  /** An id (`inv_…`, `bill_…`) rather than a document number or reference. */
  isId: boolean;
  /** Invoice number as a number (INV-0003 -> 3), for matching however it is padded. */
  invoiceNo?: number;
}

export type Intent =
  | { kind: 'guard'; guard: Guard; matched: string }
  | { kind: 'lookup'; ref: RecordRef }
  | { kind: 'receivables'; focus: 'owed' | 'overdue' }
  | { kind: 'payables'; focus: 'all' | 'due' | 'held' | 'overdue' }
  | { kind: 'tax' }
  | { kind: 'payroll'; period: Period | null }
  | { kind: 'cash' }
  | { kind: 'expenses'; period: Period | null; top: number | null }
  | { kind: 'activity'; period: Period | null; limit: number | null }
  | { kind: 'unknown' };

const GUARDS: { guard: Guard; patterns: RegExp[] }[] = [
  {
    guard: 'rules',
    patterns: [
      /\b(ignore|disregard|forget|override|bypass|skip|drop|break|suspend|turn off|disable)\b[^.?!]{0,60}\b(rules?|instructions?|prompts?|guard ?rails?|polic(y|ies)|restrictions?|constraints?|guidelines?|safeguards?|grounding|limits?)\b/,
      /\b(ignore|disregard|forget)\s+(all\s+|any\s+|everything\s+)?(previous|prior|above|earlier|the above|that)\b/,
      /\b(system|developer)\s*(prompt|message|mode)\b/,
      /\byour\s+(system\s+)?(prompt|instructions|rules|guidelines|configuration|config)\b/,
      /\b(you are now|from now on,? you|pretend (to be|you are|that)|act as (if|an?|the)|role-?play|jailbreak|do anything now|\bdan\b mode)\b/,
      /\bnew instructions?\b/,
      /(^|\n|\s)(system|assistant)\s*:/,
      /\b(make up|invent|fabricate|guess)\b[^.?!]{0,40}\b(numbers?|figures?|amounts?|answers?|data|records?)\b/,
    ],
  },
  {
    guard: 'internals',
    patterns: [
      /\bsql\b/,
      /\bselect\s+[\w*,\s]+\s+from\b/,
      /\b(database|db schema|schema|tables?\s+(names?|structure)|raw quer(y|ies)|query text)\b/,
      /\b(api[ -]?keys?|passwords?|secrets?|credentials?|access tokens?|bearer tokens?|private keys?|tfns?|tax file numbers?)\b/,
    ],
  },
  {
    guard: 'other_org',
    patterns: [
      /\b(another|other|different|second|someone else'?s|all|every|each)\s+(orgs?|organi[sz]ations?|tenants?|workspaces?)\b/,
      /\b(another|other|different|someone else'?s)\s+(company|companies|business|businesses|client'?s books)\b/,
      /\bacross\s+(all\s+)?(orgs?|organi[sz]ations?|tenants?|workspaces?|companies)\b/,
      /\b(org|organi[sz]ation|tenant|workspace)\s+(called|named|with (slug|id))\b/,
      /\borg_[a-z0-9]+\b/,
      /\b(org|organi[sz]ation|tenant|workspace)\s+["']?[a-z][a-z0-9]*-[a-z0-9-]+/,
    ],
  },
  {
    guard: 'act',
    patterns: [
      new RegExp(
        String.raw`(^|[.!?;:,]\s*|\b(please|pls|kindly|can you|could you|would you|will you|you should|i want you to|i need you to|go ahead and|now|then|and|just|also)\s+)` +
          String.raw`(pay|approve|send|void|lodge|sign|delete|remove|erase|write off|record|create|raise|issue|draft|chase|release|hold|put|update|edit|modify|change|transfer|move|reverse|post|mark|cancel|resubmit|reconcile|refund|recall|reject|dispose|depreciate|email|notify|wire)` +
          String.raw`\b(?!\s+(me|us|of|on|in|to me)\b)`,
      ),
    ],
  },
];

/** Invoice numbers (INV-0003, inv 3, invoice #3, invoice number 3) and row ids. */
const INVOICE_NO = /\b(?:inv-?\s?|invoice\s+(?:number\s+|no\.?\s*|#\s?))0*(\d{1,7})\b/;
const ROW_ID = /\b(inv|bill)_[a-z0-9]{6,40}\b/;
const OTHER_ID = /\b(cn|jnl|pay|bas|ast|fl|clm|con|emp|brun|stp|pmt|prm|onb|lv|rcpt|psl|mj|dep|imp|stm|key|usr|agt)_[a-z0-9]{6,40}\b/;
/** A document reference: letters, a hyphen, then digits (PW-7781, RENT-2026-11, SI-20418). */
const DOC_REF = /\b([a-z]{1,10}-\d[\w-]*)\b/;

/** A topic's weighted patterns. */
interface Topic {
  kind: 'receivables' | 'payables' | 'tax' | 'payroll' | 'cash' | 'expenses' | 'activity';
  patterns: [RegExp, number][];
}

const TOPICS: Topic[] = [
  {
    kind: 'receivables',
    patterns: [
      [/\b(customers?|clients?|debtors?|receivables?|accounts receivable)\b/, 3],
      [/\bowe[sd]?\s+(us|me)\b|\bowed\s+to\s+(us|me)\b|\bwe('re| are)( still)? owed\b|\bowing\b/, 3],
      [/\b(unpaid|outstanding|open|overdue|late)\s+invoices?\b/, 4],
      [/\binvoices?\b/, 2],
      [/\bowes?\b|\bowing\b/, 2],
      [/\b(overdue|late pay\w*|hasn'?t paid|haven'?t paid|not paid|paid late|who owes)\b/, 1],
      [/\b(collect|chase|chasing|dunning)\b/, 1],
    ],
  },
  {
    kind: 'payables',
    patterns: [
      [/\bbills?\b/, 4],
      [/\b(suppliers?|creditors?|payables?|accounts payable|vendors?)\b/, 3],
      [/\bwe owe\b|\bdo we owe\b|\bowe (to )?(our )?suppliers\b/, 3],
      [/\b(on hold|held|hold)\b/, 1],
      [/\b(payment run|awaiting approval|need(s)? approval|to approve)\b/, 2],
    ],
  },
  {
    kind: 'tax',
    patterns: [[/\b(gst|bas|business activity statement|ato|tax|taxes|lodgements?|lodged|lodging|payg withholding|withholding)\b/, 4]],
  },
  {
    kind: 'payroll',
    patterns: [
      [/\b(payroll|wages?|salar(y|ies)|pay ?runs?|superannuation|super guarantee|staff costs?|employee costs?|people costs?|payslips?|paye?g)\b/, 4],
      [/\bsuper\b/, 4],
      [/\b(staff|employees?|team)\b/, 1],
    ],
  },
  {
    kind: 'cash',
    patterns: [
      [/\b(cash|bank balance|in the bank|bank account|cash position|liquidity|money (do )?we have|money in)\b/, 4],
      [/\bbank\b/, 2],
      [/\b(unreconciled|bank lines?|bank feed|feed lines?)\b/, 2],
    ],
  },
  {
    kind: 'expenses',
    patterns: [
      [/\b(expenses?|expenditure|spend|spending|spent|outgoings|costs?|overheads?)\b/, 3],
      [/\b(largest|biggest|top|highest|most)\b/, 1],
      [/\bwhere (does|did) (the|our) money go\b/, 4],
    ],
  },
  {
    kind: 'activity',
    patterns: [
      [/\b(activity|ledger events?|events|audit trail|audit log|latest changes|recent changes|what changed|changes)\b/, 4],
      [/\b(recent|recently|latest|lately|last few|happened)\b/, 2],
      [/\bledger\b/, 1],
    ],
  },
];

export function normalise(question: string): string {
  return question
    .toLowerCase()
    .replace(/[‘’ʼ`]/g, "'")
    .replace(/[“”]/g, '"')
    .replace(/[‐-―]/g, '-')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Classify a question (see the header for the rules). `today` resolves relative periods. */
export function classify(question: string, today: string): Intent {
  const q = normalise(question);
  for (const { guard, patterns } of GUARDS) {
    for (const re of patterns) {
      const m = re.exec(q);
      if (m) return { kind: 'guard', guard, matched: m[0].trim() };
    }
  }

  const ref = recordRef(q);
  if (ref) return { kind: 'lookup', ref };
  const other = OTHER_ID.exec(q);
  if (other) return { kind: 'lookup', ref: { text: other[0], kind: 'any', isId: true } };

  let best: { kind: Topic['kind']; score: number } | null = null;
  for (const topic of TOPICS) {
    const score = topic.patterns.reduce((sum, [re, w]) => sum + (re.test(q) ? w : 0), 0);
    if (score > 0 && (!best || score > best.score)) best = { kind: topic.kind, score };
  }
  const period = periodFrom(q, today);
  switch (best?.kind) {
    case 'receivables':
      return { kind: 'receivables', focus: /\b(overdue|late|past due|chase|chasing|hasn'?t paid|haven'?t paid|behind)\b/.test(q) ? 'overdue' : 'owed' };
    case 'payables':
      return {
        kind: 'payables',
        focus: /\b(on hold|held|hold|disputed|blocked|awaiting approval|need(s)? approval|to approve|signature)\b/.test(q)
          ? 'held'
          : /\b(overdue|late|past due)\b/.test(q)
            ? 'overdue'
            : /\b(due|upcoming|coming up|next|pay (this|next)|to pay)\b/.test(q)
              ? 'due'
              : 'all',
      };
    case 'tax':
      return { kind: 'tax' };
    case 'payroll':
      return { kind: 'payroll', period };
    case 'cash':
      return { kind: 'cash' };
    case 'expenses':
      return { kind: 'expenses', period, top: topN(q) };
    case 'activity':
      return { kind: 'activity', period, limit: topN(q) };
    default:
      return { kind: 'unknown' };
  }
}

function recordRef(q: string): RecordRef | null {
  const id = ROW_ID.exec(q);
  if (id) return { text: id[0], kind: id[1] === 'inv' ? 'invoice' : 'bill', isId: true };
  const inv = INVOICE_NO.exec(q);
  if (inv) return { text: inv[0], kind: 'invoice', isId: false, invoiceNo: Number(inv[1]) };
  const doc = DOC_REF.exec(q);
  // `inv-` is caught above; ISO dates never match (they start with digits).
  if (doc) return { text: doc[1], kind: 'any', isId: false };
  return null;
}

/** "top 5", "last 10", "5 largest", "ten biggest": how many items to list, when the question says. */
function topN(q: string): number | null {
  const words: Record<string, number> = { one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, twenty: 20 };
  const m =
    /\b(?:top|last|latest|first|biggest|largest|recent)\s+(\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|twenty)\b(?!\s+(days?|weeks?|months?|quarters?|years?)\b)/.exec(
      q,
    ) ?? /\b(\d{1,3}|three|four|five|six|seven|eight|nine|ten|twenty)\s+(?:largest|biggest|highest|top|most recent|latest|recent)\b/.exec(q);
  if (!m) return null;
  const n = words[m[1]] ?? Number(m[1]);
  return n >= 1 && n <= 100 ? n : null;
}
