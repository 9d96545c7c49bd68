import type { Draft } from '../../../../ai-gateway/types.js';
import { DraftBuilder, account, countOf, more, nameOf, plural, record, sumOf, valueOf } from '../../../../ai-gateway/local/compose.js';
import type { AskContext } from './context.js';
import { financialYear, type Period } from './period.js';
import { readAll, trialBalance, type PayrollSummary, type ProfitAndLoss } from './reads.js';

/*
 * "What did payroll cost this quarter?": books.reports payrollSummary for the period (default: this financial
 * year to date) for the posted pay runs and each employee, books.reports profitAndLoss for the same period for
 * the cost lines (477 wages and salaries, 478 superannuation: the employer's cost is their sum), and
 * books.reports trialBalance as at today for what is still owed (804 net wages, 825 PAYG withheld, 826 super),
 * and books.taxObligations as at today for when the unpaid super is due (Payday Super: per pay run).
 */

interface Obligation {
  kind: string;
  key: string;
  periodStart: string;
  periodEnd: string;
  dueDate: string;
  status: string;
  overdue: boolean;
}

const WAGES = '477';
const SUPER = '478';
/** Liabilities a pay run leaves until paid: net wages, PAYG withheld, super. */
const OWED: [string, string][] = [
  ['804', 'net wages not yet paid'],
  ['825', 'PAYG withheld, due to the ATO with the BAS'],
  ['826', 'super, due to the funds'],
];

export async function payroll(ctx: AskContext, asked: Period | null): Promise<Draft> {
  const fy = financialYear(ctx.today);
  const period = asked ?? { from: fy.from, to: ctx.today };
  const summary = (await ctx.tools.call('books.reports', { report: 'payrollSummary', from: period.from, to: period.to })) as PayrollSummary;
  const pl = (await ctx.tools.call('books.reports', { report: 'profitAndLoss', from: period.from, to: period.to })) as ProfitAndLoss;
  const b = new DraftBuilder();
  const rec = (x: { id: string }) => record(x.id);
  const when = `from ${period.from} to ${period.to}`;

  const costLines = pl.expenses.lines.filter((l) => l.account === WAGES || l.account === SUPER);
  if (costLines.length > 0) {
    const cost = b.fact(
      sumOf(costLines, (l) => account(l.account), 'amountCents'),
      (v) => `Payroll cost ${when} (wages ${WAGES} plus super ${SUPER}, profit and loss): ${v}.`,
    );
    const parts = costLines.map(
      (l) => `${l.name} (${l.account}) ${b.fact(valueOf(l, account(l.account), 'amountCents'), (v) => `${l.name} (${l.account}) ${when}: ${v}.`)}`,
    );
    b.say(`Payroll cost ${when} is ${cost} in the profit and loss: ${parts.join(' plus ')}.`);
  }

  const runs = summary.runs;
  if (runs.length === 0) {
    const n = b.fact(countOf(runs, rec), (v) => `Posted pay runs paid ${when}: ${v}.`);
    b.say(`No pay run was posted with a pay date ${when} (${n} runs).`);
    await owedNow(ctx, b);
    await superDue(ctx, b);
    return b.build();
  }
  const n = b.fact(countOf(runs, rec), (v) => `Posted pay runs paid ${when}: ${v}.`);
  const gross = b.fact(sumOf(runs, rec, 'grossCents'), (v) => `Gross wages of the posted pay runs ${when}: ${v}.`);
  const sup = b.fact(sumOf(runs, rec, 'superCents'), (v) => `Super guarantee on them: ${v}.`);
  const payg = b.fact(sumOf(runs, rec, 'paygCents'), (v) => `PAYG withheld from them: ${v}.`);
  const net = b.fact(sumOf(runs, rec, 'netCents'), (v) => `Net pay to staff from them: ${v}.`);
  b.say(
    `${plural(n, 'posted pay run')} paid ${when}: gross wages ${gross}, super on top ${sup}; of the gross, ${payg} was withheld as PAYG and ${net} is net pay to staff.`,
  );
  paygSources(b, runs, summary.employees, when);
  const people = [...summary.employees].sort((a, b) => b.grossCents - a.grossCents);
  if (people.length > 0) {
    const { parts, omitted } = b.each(people, 1, (e) => `${nameOf(e)} ${b.fact(valueOf(e, rec(e), 'grossCents'), (v) => `${nameOf(e)} gross ${when}: ${v}.`)}`);
    b.say(`By employee (gross): ${parts.join(', ')}${more(omitted, 'books.reports payrollSummary')}.`);
  }
  await owedNow(ctx, b);
  await superDue(ctx, b);
  b.say('Draft pay runs are not counted until a human signs them.');
  return b.build();
}

/**
 * Where each PAYG figure came from: the ATO schedule of each run's pay date and each employee's scale, quoted
 * from the report's records (their names hold numbers that are the records' words, not figures).
 */
function paygSources(b: DraftBuilder, runs: PayrollSummary['runs'], employees: PayrollSummary['employees'], when: string): void {
  const rec = (x: { id: string }) => record(x.id);
  const bySchedule = new Map<string, PayrollSummary['runs']>();
  for (const r of runs) if (r.paygSchedule) bySchedule.set(r.paygSchedule, [...(bySchedule.get(r.paygSchedule) ?? []), r]);
  if (bySchedule.size > 0) {
    const parts = [...bySchedule].map(([name, rs]) => {
      const quoted = b.quote(name, rs.map(rec));
      return `${b.fact(sumOf(rs, rec, 'paygCents'), (v) => `PAYG withheld ${when} under ${quoted}: ${v}.`)} under ${quoted}`;
    });
    b.say(`PAYG by the schedule of each pay date: ${parts.join('; ')}.`);
  }
  const people = employees.filter((e) => e.paygBy.some((x) => x.reason));
  if (people.length === 0) return;
  const { parts, omitted } = b.each(people, 4, (e) => {
    const each = e.paygBy.flatMap((x, i) => {
      if (!x.reason) return [];
      const reason = b.quote(x.reason, [rec(e)]);
      return [`${b.fact(valueOf(e, rec(e), `paygBy.${i}.paygCents`), (v) => `${nameOf(e)}: PAYG ${v} on ${reason}.`)} on ${reason}`];
    });
    return `${nameOf(e)} ${each.join(' and ')}`;
  });
  b.say(`PAYG by employee and scale: ${parts.join(', ')}${more(omitted, 'books.reports payrollSummary')}.`);
}

/** What payroll still owes as at today: the credit balances of the payroll liabilities in the trial balance. */
async function owedNow(ctx: AskContext, b: DraftBuilder): Promise<void> {
  const tb = await trialBalance(ctx.tools, ctx.today);
  const parts = OWED.flatMap(([code, what]) => {
    const line = tb.lines.find((l) => l.account === code && l.creditCents > 0);
    if (!line) return [];
    const v = b.fact(valueOf(line, account(code), 'creditCents'), (v) => `${line.name} (${code}) as at ${ctx.today}: ${v} owed.`);
    return [`${v} ${what} (${code})`];
  });
  if (parts.length) b.say(`Still owed as at ${ctx.today}: ${parts.join('; ')}.`);
}

/**
 * When the unpaid super must reach the funds, from the obligations calendar. Its items are not citable records,
 * so this is written without amounts or counts: the rule in words, the due dates and which are overdue.
 */
async function superDue(ctx: AskContext, b: DraftBuilder): Promise<void> {
  const unpaid = (await readAll<Obligation>(ctx.tools, 'books.taxObligations', 'obligations', { asOf: ctx.today })).items.filter(
    // SUPER is UNPAID, SENT or RECEIVED (books.taxObligations): only what the funds acknowledged is settled.
    (o) => o.kind === 'SUPER' && o.status !== 'RECEIVED',
  );
  if (unpaid.length === 0) return;
  const what = (o: Obligation) =>
    o.key.startsWith('SUPER pay_') ? `the pay run ${o.key.slice(6).replace(' first pay', ", new employees' first pay")}` : `${o.periodStart} to ${o.periodEnd}`;
  const overdue = unpaid.filter((o) => o.overdue);
  const next = unpaid.find((o) => !o.overdue);
  b.say(
    "Under Payday Super (pay dates from 2026-07-01) each pay run's super must reach the funds seven business days after payday (twenty for a new employee's first pay), weekends and public holidays of Australia and the org's state skipped; before, twenty-eight days after the quarter.",
  );
  if (overdue.length) b.say(`Super overdue as at ${ctx.today} (books.taxObligations): ${overdue.map((o) => `${what(o)}, due ${o.dueDate}`).join('; ')}.`);
  if (next) b.say(`The next super due is for ${what(next)}, by ${next.dueDate}.`);
}
