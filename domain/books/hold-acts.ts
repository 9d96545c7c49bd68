import { DATE, type HoldActDescriber, MONEY, money, num, pick, str } from '../core/hold-acts.js';

/**
 * How the books' held acts read in the approval inbox (pay runs, bills, payment runs, reminders, contracts, BAS, bank
 * matches), from the summaries the books record with their holds: a change to a summary changes its pattern here.
 */
export const booksHoldActs: Readonly<Record<string, HoldActDescriber>> = {
  'books.payroll_sign': (s) => ({
    title: 'Sign a pay run',
    facts: [
      ...pick(s, new RegExp(`^Pay run (?<period>.+?): (?<staff>\\d+) staff, gross (?<gross>${MONEY}), net (?<net>${MONEY}), paid (?<paid>${DATE})`), [
        ['period', 'Period'],
        ['staff', 'Employees'],
        ['gross', 'Gross wages'],
        ['net', 'Net pay'],
        ['paid', 'Pay date'],
      ]),
      // `; PAYG $604.00 under ATO Schedule 1 2026-27 (from 2026-07-01), scale 2: tax-free threshold claimed`
      ...pick(s, new RegExp(`; PAYG (?<payg>${MONEY}) under (?<schedule>ATO Schedule 1 .+? \\(from ${DATE}\\))(?:, (?<scales>scale .+))?$`), [
        ['payg', 'PAYG withheld'],
        ['schedule', 'PAYG schedule'],
        ['scales', 'PAYG scales'],
      ]),
    ],
  }),
  'books.bill_approve': (s) => ({
    title: s.startsWith('Release the hold') ? 'Release the hold on a bill' : 'Approve a bill',
    facts: [
      ...pick(s, /; from (?<payee>.+?), ref (?<ref>.+?)$/, [['payee', 'Payee']]),
      ...pick(s, new RegExp(`for (?<total>${MONEY}) incl\\. GST (?<gst>${MONEY}), due (?<due>${DATE})`), [
        ['total', 'Amount'],
        ['gst', 'GST included'],
        ['due', 'Due'],
      ]),
      ...pick(s, /: (?<flags>(?:ABOVE FLOOR|NEW PAYEE)(?: and (?:ABOVE FLOOR|NEW PAYEE))?)/, [['flags', 'Why it needs a signature']]),
      ...pick(s, /new payee bank details (?<bank>BSB [^;]+)/, [['bank', 'New bank details']]),
      ...pick(s, /; from .+?, ref (?<ref>.+?)$/, [['ref', 'Reference']]),
    ],
  }),
  'books.bill_schedule_run': (s, p) => ({
    title: 'Pay bills in a payment run',
    facts: [
      ...pick(s, new RegExp(`^Pay (?<count>\\d+) bills? on (?<date>${DATE}): (?<total>${MONEY}) \\((?<payees>.+?)\\)?$`), [
        ['total', 'Total'],
        ['date', 'Pay date'],
        ['count', 'Bills'],
        ['payees', 'Payees'],
      ]),
      ...(Array.isArray(p.billIds) && !/^Pay \d+ bills? on/.test(s) ? [{ label: 'Bills', value: String(p.billIds.length) }] : []),
    ],
  }),
  'books.invoice_chase_step': (s) => ({
    title: 'Send a payment reminder',
    facts: pick(
      s,
      // `…: $550.00 due 2026-10-03`; summaries recorded before the due date was named ended `due, 12 days overdue`.
      new RegExp(
        `^Step (?<step>\\d+) \\((?<tone>.+?)\\) reminder to (?<payee>.+?) for (?<invoice>\\S+): (?<due>${MONEY}) due(?: (?<date>${DATE}))?(?:, (?<overdue>\\d+) days overdue)?`,
      ),
      [
        ['payee', 'To'],
        ['due', 'Amount due'],
        ['invoice', 'Invoice'],
        ['date', 'Due date'],
        ['overdue', 'Days overdue'],
        ['step', 'Reminder step'],
        ['tone', 'Tone'],
      ],
    ),
  }),
  'books.onboarding_advance': (s) => ({
    title: 'Sign an employment contract',
    facts: pick(s, new RegExp(`^Employment contract (?<ref>.+?) for (?<name>.+?) as (?<role>.+?), starting (?<start>${DATE}) at (?<rate>.+)$`), [
      ['name', 'Employee'],
      ['role', 'Role'],
      ['rate', 'Pay'],
      ['start', 'Starts'],
      ['ref', 'Contract'],
    ]),
  }),
  'books.tax_sign_lodge': (s, p) => {
    const labels = p.labels && typeof p.labels === 'object' ? (p.labels as Record<string, unknown>) : {};
    const net = num(p.netCents);
    return {
      title: 'Sign and lodge a BAS',
      facts: [
        ...pick(s, /^BAS (?<period>.+?) \(/, [['period', 'Period']]),
        ...(str(p.periodStart) && str(p.periodEnd) && !/^BAS .+? \(/.test(s) ? [{ label: 'Period', value: `${p.periodStart} to ${p.periodEnd}` }] : []),
        ...(net === undefined ? [] : [{ label: net < 0 ? 'Refund from the ATO' : 'Payable to the ATO', value: money(Math.abs(net)) }]),
        ...Object.entries(labels).flatMap(([k, v]) => (num(v) === undefined ? [] : [{ label: `BAS ${k}`, value: money(v as number) }])),
      ],
    };
  },
  'books.match_hold_resolve': (s) => ({
    title: 'Release a held bank match',
    facts: pick(s, new RegExp(`^Release (?<amount>${MONEY}) from the bank line (?<date>${DATE}) "(?<payee>.+?)" to (?<target>.+)$`), [
      ['amount', 'Amount'],
      ['payee', 'Bank line payee'],
      ['date', 'Bank line date'],
      ['target', 'Posted to'],
    ]),
  }),
};
