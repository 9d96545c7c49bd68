import { addDays, minDate, monthEnd, monthStart } from '../domain/books/dates.js';
import { importStatement } from '../domain/books/reconciliation/index.js';
import { recordStpResponse } from '../domain/books/payroll/index.js';
import { addSgBusinessDays } from '../domain/books/calendar.js';
import { superDueDate, superRule } from '../domain/books/tax/model.js';
import type { DemoDesk } from './demo.js';

/*
 * Harbour Lane Studio, a small design studio in Sydney: four staff (one on each kind of PAYG declaration the
 * desk sees most, and a director paid above the super contribution base), a handful of customers and suppliers,
 * a quarter and a bit of trading. The story runs from the first day of the last completed quarter to today, and
 * leaves one of everything waiting so a newcomer can try each books method (the summary says what and how).
 */

export const DEMO_NAME = 'Harbour Lane Studio Pty Ltd';

const RENT_BANK = { bsb: '062-000', accountNumber: '10451223', accountName: 'Harbour Property Group' };
const CHANGED_BANK = { bsb: '733-112', accountNumber: '55019876', accountName: 'Harbour Property Grp' };

const pad = (n: number) => String(n).padStart(2, '0');
/** First day of the quarter (Jul–Sep, Oct–Dec, Jan–Mar, Apr–Jun) before the one `date` is in. */
export function lastQuarterStart(date: string): string {
  const m = Number(date.slice(5, 7));
  return monthStart(date, -((m - 1) % 3) - 3);
}
const dollars = (cents: number) => `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${pad(Math.abs(cents) % 100)}`;

interface BankLine {
  date: string;
  cents: number;
  description: string;
  /** What to match it to once imported; none leaves it for the newcomer. */
  match?: Record<string, unknown>;
  /** Super sent by this line: the day the clearing house says the funds received it. */
  superReceivedOn?: string;
}

/** The pay dates the story drafts pay runs for: each month end from the last completed quarter to this month's. */
export function demoPayDates(today: string): string[] {
  const q0 = lastQuarterStart(today);
  return [0, 1, 2, 3, 4, 5, 6].map((n) => monthEnd(monthStart(q0, n))).filter((d) => d <= monthEnd(today));
}

export async function demoStory(desk: DemoDesk, today: string, progress: (line: string) => void): Promise<string[]> {
  const q0 = lastQuarterStart(today);
  const qEnd = addDays(monthStart(q0, 3), -1);
  const bank: BankLine[] = [];
  // A day of the story, never after today.
  const day = (monthOffset: number, d: number) => minDate(addDays(monthStart(q0, monthOffset), d - 1), today);

  // ---- opening balances: what the studio brought into the quarter ------------------------------------------------
  desk.at(addDays(q0, -1));
  await desk.call('books.journalPost', {
    date: addDays(q0, -1),
    narration: 'Opening balances',
    lines: [
      { account: '090', amountCents: 45_000_000, description: 'Cash at bank' },
      { account: '710', amountCents: 1_200_000, description: 'Studio furniture (at cost)' },
      { account: '960', amountCents: -46_200_000, description: 'Retained earnings' },
    ],
  });

  // ---- people ------------------------------------------------------------------------------------------------
  progress(`Hiring four staff from ${q0}`);
  const staff: Record<string, string> = {};
  // Their tax file number declarations pick the PAYG scale: Mia claims the tax-free threshold (scale 2), Leo has
  // not given a TFN yet (scale 4, 47%), Ava's main job is elsewhere (no threshold here: scale 1), and Grace, the
  // director, is paid above the maximum super contribution base, so her super stops at it.
  for (const [person, role, rate, declaration] of [
    ['Mia Chen', 'Senior designer', { basis: 'ANNUAL', amountCents: 9_500_000, hoursPerWeek: 38 }, { tfn: '123 456 782', claimsTaxFreeThreshold: true }],
    ['Leo Park', 'Designer', { basis: 'ANNUAL', amountCents: 7_200_000, hoursPerWeek: 38 }, { tfn: null }],
    ['Ava Singh', 'Bookkeeper', { basis: 'HOURLY', amountCents: 4_800, hoursPerWeek: 24 }, { tfn: '123 456 782', claimsTaxFreeThreshold: false }],
    ['Grace Lin', 'Managing director', { basis: 'ANNUAL', amountCents: 84_000_000, hoursPerWeek: 38 }, { tfn: '123 456 782', claimsTaxFreeThreshold: true }],
  ] as const) {
    desk.at(addDays(q0, -7));
    const started = await desk.call('books.onboardingStart', { person, role, startDate: q0, rate });
    const id = started.onboarding.id;
    await desk.call('books.onboardingAdvance', { id, step: 'tfn', data: declaration });
    await desk.call('books.onboardingAdvance', {
      id,
      step: 'super',
      data: { fundName: 'AustralianSuper', usi: 'STA0100AU', memberNumber: `M-${person.split(' ')[0].toUpperCase()}` },
    });
    await desk.call('books.onboardingAdvance', { id, step: 'bank', data: { bsb: '082-001', accountNumber: '20418890', accountName: person } });
    await desk.signed('books.onboardingAdvance', {
      id,
      step: 'contract',
      data: { contractRef: `contracts/${person.toLowerCase().replace(' ', '-')}.pdf`, signedOn: addDays(q0, -7) },
    });
    staff[person] = started.employee.id;
  }

  // ---- month by month ----------------------------------------------------------------------------------------
  const invoice = async (date: string, payeeName: string, description: string, totalCents: number, dueDays: number) => {
    desk.at(date);
    const drafted = await desk.call('books.invoiceDraft', { payeeName, description, totalCents, dueDays });
    return (await desk.call('books.invoiceSend', { id: drafted.invoice.id })).invoice;
  };
  const bill = async (date: string, params: Record<string, unknown>) => {
    desk.at(date);
    const captured = await desk.call('books.billCapture', { issueDate: date, ...params });
    return (await desk.approveBill(captured.bill.id)).bill;
  };

  const months = [0, 1, 2, 3, 4, 5].filter((n) => monthEnd(monthStart(q0, n)) < today);
  let unpaidSuper: UnpaidSuper | null = null;
  for (const n of months) {
    const start = monthStart(q0, n);
    progress(`Trading in ${start.slice(0, 7)}`);
    const rent = await bill(start, {
      supplierName: 'Harbour Property Group',
      reference: `RENT-${start.slice(0, 7)}`,
      dueDate: addDays(start, 6),
      totalCents: 440_000,
      bank: RENT_BANK,
    });
    bank.push({ date: addDays(start, 6), cents: -440_000, description: 'DD HARBOUR PROPERTY GROUP', match: { kind: 'bill', billId: rent.id } });
    const adobe = await bill(addDays(start, 2), {
      supplierName: 'Adobe Systems',
      reference: `ADB-${start.slice(0, 7)}`,
      dueDate: addDays(start, 2),
      totalCents: 9_900,
    });
    bank.push({ date: addDays(start, 2), cents: -9_900, description: 'ADOBE CREATIVE CLOUD', match: { kind: 'bill', billId: adobe.id } });
    bank.push({ date: monthEnd(start), cents: -2_500, description: 'ACCOUNT FEE', match: { kind: 'account', account: '404' } });

    desk.at(monthEnd(start));
    const run = await desk.call('books.payrollDraft', { periodStart: start, periodEnd: monthEnd(start), payDate: monthEnd(start) });
    const signed = await desk.signed('books.payrollSign', { runId: run.payRun.id });
    bank.push({
      date: monthEnd(start),
      cents: -signed.payRun.netCents,
      description: `PAYROLL ${start.slice(0, 7)}`,
      match: { kind: 'payRun', payRunId: signed.payRun.id },
    });
    const last = n === months[months.length - 1];
    // Super goes to the clearing house five business days after payday (inside Payday Super's seven), except on
    // the latest run: that one is left unpaid, for books.taxObligations to show due or overdue.
    const superPaid = addSgBusinessDays(monthEnd(start), 5);
    if (last || superPaid > today) unpaidSuper ??= { runId: signed.payRun.id, month: start.slice(0, 7), payDate: monthEnd(start), firstPay: n === months[0] };
    else {
      // The clearing house reports the funds' receipt two business days later (if that day has come).
      const received = addSgBusinessDays(superPaid, 2);
      bank.push({
        date: superPaid,
        cents: -signed.payRun.superCents,
        description: `SUPER CLEARING HOUSE ${start.slice(0, 7)}`,
        match: { kind: 'account', account: '826' },
        ...(received <= today ? { superReceivedOn: received } : {}),
      });
    }
    await desk.runtime.db.tx((q) =>
      recordStpResponse(
        q,
        desk.orgId,
        signed.payRun.stp.id,
        last ? { status: 'FAILED', error: 'CMN.ATO.PAYEVNT.EM92: payee address incomplete (Ava Singh)' } : { status: 'ACCEPTED' },
      ),
    );
  }

  progress('Customers, invoices and payments');
  const cafe = await invoice(day(0, 3), 'Harbour Cafe Pty Ltd', 'Brand refresh: logo, menus and signage', 1_650_000, 14);
  bank.push({ date: day(0, 21), cents: 1_650_000, description: 'HARBOUR CAFE PTY LTD INV', match: { kind: 'invoice', invoiceId: cafe.id } });
  const wren = await invoice(day(0, 10), 'Blue Wren Studio', 'Illustration for the spring catalogue', 880_000, 30);
  bank.push({ date: day(1, 12), cents: 400_000, description: 'BLUE WREN STUDIO PART PAYMENT', match: { kind: 'invoice', invoiceId: wren.id } });
  const realty = await invoice(day(1, 4), 'Coastal Realty', 'Photography and brochure design', 2_420_000, 30);
  const cafe2 = await invoice(day(1, 16), 'Harbour Cafe Pty Ltd', 'Seasonal menu update', 495_000, 14);
  bank.push({ date: day(1, 28), cents: 495_000, description: 'HARBOUR CAFE PTY LTD', match: { kind: 'invoice', invoiceId: cafe2.id } });
  const physio = await invoice(day(2, 5), 'Northside Physio', 'Website refresh: 12 hours', 1_320_000, 30);
  desk.at(day(2, 20));
  await desk.call('books.invoiceCreditNote', { id: physio.id, amountCents: 132_000, reason: 'Two hours not used' });
  bank.push({ date: day(3, 2), cents: 1_188_000, description: 'NORTHSIDE PHYSIO', match: { kind: 'invoice', invoiceId: physio.id } });
  const website = await invoice(day(3, 2), 'Coastal Realty', 'Website build and launch', 7_700_000, 14);

  progress('Suppliers: equipment, a payment run, a disputed bill');
  const laptop = await bill(day(1, 8), {
    supplierName: 'Tech Supplies Co',
    reference: 'TS-20931',
    dueDate: day(1, 22),
    lines: [{ description: 'MacBook Pro 14-inch', account: '720', amountCents: 429_000 }],
  });
  desk.at(day(1, 20));
  const paid = await desk.signed('books.billScheduleRun', { payDate: day(1, 20), billIds: [laptop.id] });
  bank.push({ date: day(1, 20), cents: -429_000, description: 'PAYMENT RUN TECH SUPPLIES', match: { kind: 'paymentRun', paymentRunId: paid.run.id } });
  await bill(day(2, 12), { supplierName: 'Printworks Australia', reference: 'PW-7781', dueDate: addDays(today, 10), totalCents: 660_000 });
  const hosting = await bill(day(2, 14), { supplierName: 'Cloud Hosting Pty Ltd', reference: 'CH-3390', dueDate: addDays(today, 5), totalCents: 55_000 });
  desk.at(day(2, 16));
  await desk.call('books.billHold', { id: hosting.id, reason: 'Disputed: charged twice for September' });
  const supplies = await bill(addDays(today, -6), { supplierName: 'Office Supplies Co', reference: 'OS-118', dueDate: addDays(today, 14), totalCents: 88_000 });
  // The laptop depreciates from the month it was bought.
  for (const n of months.filter((m) => m >= 1)) {
    desk.at(monthEnd(monthStart(q0, n)));
    await desk.call('books.assetDepreciationRun', { periodEnd: monthEnd(monthStart(q0, n)) });
  }

  progress('Expenses, leave and a new starter');
  desk.at(day(1, 9));
  const taxi = await desk.call('books.expenseClaim', {
    employeeId: staff['Mia Chen'],
    date: day(1, 9),
    merchant: '13CABS',
    totalCents: 18_700,
    account: '429',
    receiptRef: 'receipts/13cabs.pdf',
  });
  await desk.call('books.expenseApprove', { id: taxi.claim.id });
  bank.push({ date: day(1, 25), cents: -18_700, description: 'REIMBURSE M CHEN', match: { kind: 'claim', claimId: taxi.claim.id } });
  desk.at(addDays(today, -2));
  await desk.call('books.expenseClaim', {
    employeeId: staff['Leo Park'],
    date: addDays(today, -3),
    merchant: 'Officeworks',
    totalCents: 6_600,
    account: '429',
    receiptRef: 'receipts/officeworks.pdf',
  });
  await desk.call('books.leaveRequest', {
    employeeId: staff['Leo Park'],
    kind: 'ANNUAL',
    startDate: addDays(today, 21),
    endDate: addDays(today, 23),
    hours: 22.8,
  });
  const noah = await desk.call('books.onboardingStart', {
    person: 'Noah Williams',
    role: 'Junior designer',
    startDate: addDays(today, 14),
    rate: { basis: 'ANNUAL', amountCents: 6_200_000, hoursPerWeek: 38 },
  });
  for (const [step, data] of [
    ['tfn', { tfn: '123 456 782', claimsTaxFreeThreshold: true }],
    ['super', { fundName: 'Hostplus', usi: 'HOS0001AU', memberNumber: 'M-NOAH' }],
    ['bank', { bsb: '012-003', accountNumber: '33441122', accountName: 'Noah Williams' }],
  ] as const) {
    await desk.call('books.onboardingAdvance', { id: noah.onboarding.id, step, data });
  }

  progress('The bank statement: importing and reconciling');
  bank.push({ date: addDays(today, -2), cents: 7_700_000, description: 'COASTAL REALTY WEBSITE' });
  bank.push({ date: addDays(today, -4), cents: -14_300, description: 'OFFICEWORKS 0412 SYDNEY' });
  const csv = ['Date,Amount,Description,Transaction ID', ...bank.map((l, i) => `${l.date},${dollars(l.cents)},${l.description},DEMO-${i + 1}`)].join('\n');
  desk.at(today);
  await importStatement(desk.runtime.db, desk.orgId, { format: 'csv', content: csv, fileName: 'harbour-lane-statement.csv' }, '');
  const lines = await desk.runtime.db.query<{ line_id: string; bank_txn_id: string }>('SELECT line_id, bank_txn_id FROM books_feed_lines WHERE org_id = $1', [
    desk.orgId,
  ]);
  const lineOf = new Map(lines.map((l) => [l.bank_txn_id, l.line_id]));
  for (const [i, l] of bank.entries()) {
    if (!l.match) continue;
    const lineId = lineOf.get(`DEMO-${i + 1}`);
    const matched = await desk.call('books.matchAccept', { lineId, target: l.match });
    // Super above the materiality floor (the director's) is held for a human, who releases it.
    if (l.match.account === '826' && matched.line.status === 'HELD') await desk.signed('books.matchHoldResolve', { lineId, decision: 'approve' });
  }
  // Super counts when the fund receives it: the clearing house's acknowledgements, each against the line that sent it.
  for (const [i, l] of bank.entries()) {
    if (!l.superReceivedOn) continue;
    await desk.call('books.receiptsRegister', {
      supplier: 'Beam clearing house',
      date: l.superReceivedOn,
      totalCents: -l.cents,
      fileRef: `super/acknowledgement-${l.date}.pdf`,
      taxInvoice: false,
      link: { kind: 'super', lineId: lineOf.get(`DEMO-${i + 1}`) },
    });
  }

  progress('Dunning, a promise to pay, the BAS');
  desk.at(addDays(today, -5));
  await desk.call('books.invoiceChaseStep', { id: realty.id, step: 1 });
  desk.at(today);
  await desk.call('books.invoicePromise', { id: wren.id, date: addDays(today, 7) });
  await desk.call('books.invoiceDraft', { payeeName: 'Lighthouse Bakery', description: 'Packaging design', totalCents: 275_000, dueDays: 14 });
  const rentChanged = await desk.call('books.billCapture', {
    supplierName: 'Harbour Property Group',
    reference: `RENT-${today.slice(0, 7)}`,
    issueDate: monthStart(today),
    dueDate: addDays(monthStart(today), 6),
    totalCents: 440_000,
    bank: CHANGED_BANK,
  });
  const bas = await desk.call('books.taxPrepare', { periodStart: q0, periodEnd: qEnd });
  const draftRun = await desk.call('books.payrollDraft', { periodStart: monthStart(today), periodEnd: monthEnd(today), payDate: monthEnd(today) });
  const stp = await desk.runtime.db.query<{ stp_id: string }>(`SELECT stp_id FROM books_stp_events WHERE org_id = $1 AND status = 'FAILED'`, [desk.orgId]);
  const held = lineOf.get(`DEMO-${bank.length - 1}`);

  return [
    `Try these (each is waiting in the books):`,
    `  books.taxSignLodge {"id":"${bas.lodgement.id}"}: lodge the prepared BAS (${q0}..${qEnd}): a signature act, it holds for a human`,
    `  books.payrollSign {"runId":"${draftRun.payRun.id}"}: sign this month's drafted pay run (signature act)`,
    payrollLine(draftRun.payRun),
    `  books.billApprove {"id":"${rentChanged.bill.id}"}: rent with CHANGED bank details: NEW PAYEE, refused until a human signs (PB-B1)`,
    `  books.billScheduleRun {"payDate":"${addDays(today, 1)}","billIds":["${supplies.id}"]}: pay Office Supplies Co (signature act)`,
    `  books.invoiceChaseStep {"id":"${realty.id}","step":2}: a firm reminder to Coastal Realty (signature act)`,
    `  books.matchAccept {"lineId":"${held}","target":{"kind":"invoice","invoiceId":"${website.id}"}}: $77,000 received, above the floor: HELD, then books.matchHoldResolve`,
    `  books.onboardingAdvance {"id":"${noah.onboarding.id}","step":"contract","data":{"contractRef":"contracts/noah.pdf","signedOn":"${today}"}}: a contract (signature act)`,
    `  books.stpResubmit {"eventId":"${stp[0]?.stp_id}"}: resend the pay event the ATO rejected`,
    ...(unpaidSuper ? [superLine(unpaidSuper, today)] : []),
    `  books.invoiceSend, books.expenseApprove, books.leaveApprove, books.feedLines {"status":"UNMATCHED"}, books.reports {"report":"agedReceivables"}`,
  ];
}

interface DraftSlip {
  employee: { name: string };
  paygScale: string | null;
  grossCents: number;
  superCents: number;
  superBase: { explanation: string } | null;
}

/** What this month's draft shows of the declarations and the contribution base: the scale of each, the director's super. */
function payrollLine(run: { paygSchedule: string | null; payslips: DraftSlip[] }): string {
  const scales = run.payslips.map((s) => `${s.employee.name} scale ${s.paygScale}`).join(', ');
  const grace = run.payslips.find((s) => s.employee.name === 'Grace Lin');
  return `    its PAYG is under ${run.paygSchedule}: ${scales}${grace?.superBase ? `; Grace Lin's super: ${grace.superBase.explanation}` : ''}`;
}

interface UnpaidSuper {
  runId: string;
  month: string;
  payDate: string;
  /** The story's first run is every employee's first pay (20 business days under Payday Super). */
  firstPay: boolean;
}

/** The summary line of the super left unpaid: when it is due under the rule of its pay date, and whether it is late. */
function superLine(u: UnpaidSuper, today: string): string {
  const due = superDueDate(u.payDate, u.firstPay);
  const late = due < today ? `, overdue since ${due}` : `, due ${due}`;
  return `  books.taxObligations {}: the super of the ${u.month} pay run (${u.runId}) is unpaid${late} (${superRule(u.payDate)}); pay it with a bank line coded to 826`;
}
