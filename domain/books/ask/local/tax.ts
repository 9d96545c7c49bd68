import type { Draft } from '../../../../ai-gateway/types.js';
import { DraftBuilder, account, countOf, list, more, record, valueOf } from '../../../../ai-gateway/local/compose.js';
import type { AskContext } from './context.js';
import { quarter, type Period } from './period.js';
import { readAll, trialBalance, type BasSummary } from './reads.js';

interface Obligation {
  kind: string;
  periodStart: string;
  periodEnd: string;
  dueDate: string;
  overdue: boolean;
  status: string;
  estimated: boolean;
  dueRule?: 'PAYDAY' | 'FIRST_CONTRIBUTION' | 'OUT_OF_CYCLE' | 'QUARTERLY';
  holidaysSkipped?: { date: string; name: string; states: string[] }[];
}

/** Where a super due date came from, in words without digits (the grounding rule reads digits as figures). */
const RULE_WORDS = {
  PAYDAY: 'seven business days after payday (Payday Super)',
  FIRST_CONTRIBUTION: "twenty business days after payday, a first contribution (a new or re-employed employee's first pay, or the first pay to a new fund)",
  OUT_OF_CYCLE: 'seven business days after the next regular payday, an out-of-cycle run',
  QUARTERLY: 'twenty-eight days after the quarter, the quarterly rule before Payday Super',
} as const;

const SUPER_STATE: Record<string, string> = {
  UNPAID: 'nothing sent yet',
  SENT: 'sent, but the funds have not acknowledged receiving all of it (super counts when the fund receives it)',
  RECEIVED: 'received by the funds',
};

/** One super obligation: its period, due date, the rule behind it, the holidays it skipped and where it stands. */
function superLine(o: Obligation): string {
  const skipped = o.holidaysSkipped?.length
    ? `, skipping ${list(o.holidaysSkipped.map((h) => `${h.name} ${h.date} (${h.states.length === 8 ? 'all states' : h.states.join(', ')})`))}`
    : '';
  const rule = o.dueRule ? RULE_WORDS[o.dueRule] : 'its rule';
  const late = o.overdue ? (o.status === 'RECEIVED' ? ', received late' : ', overdue') : '';
  return `super for ${o.periodStart} to ${o.periodEnd} due ${o.dueDate}${o.estimated ? ' (estimated)' : ''}: ${rule}${skipped}; ${SUPER_STATE[o.status] ?? o.status}${late}`;
}

/*
 * "What's our GST position?", "Has the BAS been lodged?": books.reports trialBalance as at today for the tax
 * accounts the BAS clears (820 GST: GST on sales less GST credits; 825 PAYG withholding), then books.reports
 * basSummary for the quarter asked about (default: the last completed quarter) for its lodgement and status,
 * and books.taxObligations for due dates. The BAS labels and obligations are not citable records, so amounts
 * are stated from the trial balance lines; a held or prepared BAS is reported as not lodged, never as lodged.
 */

const GST = '820';
const PAYGW = '825';

const STATUS_WORDS: Record<string, string> = {
  DRAFT: 'DRAFT: returned to the preparer, not lodged',
  PREPARED: 'PREPARED: awaiting a human signature to lodge, not lodged',
  HELD: 'HELD: lodging is blocked until it is returned and re-prepared, not lodged',
  LODGED: 'LODGED',
};

export async function tax(ctx: AskContext, asked: Period | null): Promise<Draft> {
  const tb = await trialBalance(ctx.tools, ctx.today);
  const period = asked ?? quarter(ctx.today, -1);
  const bas = (await ctx.tools.call('books.reports', { report: 'basSummary', from: period.from, to: period.to })) as BasSummary;

  const b = new DraftBuilder();
  const position = (code: string, what: string, owed: string) => {
    const line = tb.lines.find((x) => x.account === code);
    if (!line) {
      b.say(`${what}: nothing owed either way as at ${ctx.today} (no balance in the trial balance).`);
      return;
    }
    if (line.creditCents > 0) {
      const v = b.fact(valueOf(line, account(code), 'creditCents'), (v) => `${line.name} (${code}) credit balance as at ${ctx.today}: ${v}.`);
      b.say(`${what} owed to the ATO as at ${ctx.today}: ${v} (the credit balance of ${code} ${line.name}: ${owed}).`);
    } else {
      const v = b.fact(valueOf(line, account(code), 'debitCents'), (v) => `${line.name} (${code}) debit balance as at ${ctx.today}: ${v}.`);
      b.say(`${what} is in a refund position as at ${ctx.today}: ${v} (the debit balance of ${code} ${line.name}).`);
    }
  };
  position(GST, 'GST', 'GST collected on sales less GST credits on purchases');
  position(PAYGW, 'PAYG withholding', 'tax withheld from wages, paid with the BAS');

  if (bas.lodgement) {
    b.note(`The BAS for ${period.from} to ${period.to} is lodgement ${bas.lodgement.id}, status ${bas.lodgement.status}.`, [record(bas.lodgement.id)]);
    b.say(`The BAS for ${period.from} to ${period.to} (lodgement ${bas.lodgement.id}) is ${STATUS_WORDS[bas.lodgement.status] ?? bas.lodgement.status}.`);
  } else {
    const n = b.fact(countOf([], record), (v) => `BAS lodgements for ${period.from} to ${period.to}: ${v}.`);
    b.say(`No BAS has been prepared for ${period.from} to ${period.to} (${n} lodgements), so nothing for that period is lodged.`);
  }
  // Due dates come from the obligations calendar (not citable records, and written without numbers).
  const obligations = (await readAll<Obligation>(ctx.tools, 'books.taxObligations', 'obligations', { asOf: ctx.today })).items;
  const due = obligations.find((o) => o.kind === 'BAS' && o.periodStart === period.from && o.periodEnd === period.to);
  if (due) b.say(`books.taxObligations has it due on ${due.dueDate}${due.overdue ? ', and it is overdue' : ''}.`);
  const late = obligations
    .filter((o) => o.overdue && o !== due && !(o.kind === 'PAYGW' && o.periodStart === period.from && o.periodEnd === period.to))
    .map((o) => `${o.kind} ${o.periodStart} to ${o.periodEnd} (due ${o.dueDate})`);
  if (late.length) b.say(`Other overdue obligations there: ${late.join('; ')}.`);
  // Super: each open or late obligation with the rule its due date came from and the holidays it skipped.
  const supers = obligations.filter((o) => o.kind === 'SUPER' && (o.status !== 'RECEIVED' || o.overdue));
  if (supers.length) {
    const { parts, omitted } = b.each(supers, 0, superLine);
    b.say(`Super guarantee, from books.taxObligations: ${parts.join('; ')}${more(omitted, 'books.taxObligations')}.`);
  }
  b.say('The balances cover every period not yet cleared by a lodged BAS.');
  return b.build();
}
