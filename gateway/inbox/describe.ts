/**
 * What an approval would do, in plain words, for the inbox: a title naming the act and labelled facts (amounts,
 * payee, period, dates) read from the summary the server recorded with the hold and from the held call's params.
 * The summary itself is always shown too, so a summary these patterns do not recognise loses nothing. Only an
 * approval bound to a held act gets an act's title and facts; any other one is titled as not a signature.
 */

export interface Fact {
  label: string;
  value: string;
}

export interface PlainAct {
  /** The act, e.g. `Sign a pay run`. */
  title: string;
  facts: Fact[];
}

interface HeldAct {
  method: string;
  params: Record<string, unknown>;
}

const MONEY = String.raw`-?\$[\d,]+\.\d{2}`;
const DATE = String.raw`\d{4}-\d{2}-\d{2}`;

const AUD = new Intl.NumberFormat('en-AU', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** `$1,234.50`, `-$12.00`: the same form the server's summaries use. */
export function money(cents: number): string {
  const text = `$${AUD.format(Math.abs(cents) / 100)}`;
  return cents < 0 ? `-${text}` : text;
}

/** The facts a pattern's named groups give, in the order listed; groups that did not match are left out. */
function pick(summary: string, pattern: RegExp, labels: [group: string, label: string][]): Fact[] {
  const groups = pattern.exec(summary)?.groups ?? {};
  return labels.flatMap(([group, label]) => (groups[group] ? [{ label, value: groups[group] }] : []));
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

type Describer = (summary: string, params: Record<string, unknown>) => PlainAct;

const ACTS: Record<string, Describer> = {
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
      new RegExp(`^Step (?<step>\\d+) \\((?<tone>.+?)\\) reminder to (?<payee>.+?) for (?<invoice>\\S+): (?<due>${MONEY}) due(?: (?<date>${DATE}))?(?:, (?<overdue>\\d+) days overdue)?`),
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
  'board.delete_workstream': (s, p) => ({
    title: 'Delete a workstream',
    facts: [
      ...pick(s, /^Delete workstream "(?<name>.+?)" and its (?<comments>\d+) comments?; /, [
        ['name', 'Workstream'],
        ['comments', 'Comments erased'],
      ]),
      ...pick(s, /; move its (?<items>\d+ items?) to "(?<target>.+)"$/, [
        ['items', 'Items'],
        ['target', 'Items move to'],
      ]),
      ...pick(s, /; leave its (?<items>\d+ items?) \(all done\) without a workstream$/, [['items', 'Done items left without a workstream']]),
      ...(str(p.workstreamId) ? [{ label: 'Workstream id', value: p.workstreamId as string }] : []),
    ],
  }),
  'board.remove_task_attachment': (s, p) => ({
    title: 'Remove an attachment',
    facts: [
      ...pick(s, /^Remove the attachment "(?<name>.+?)" from the item "(?<item>.+)"$/, [
        ['name', 'Attachment'],
        ['item', 'From the item'],
      ]),
      ...(str(p.attachmentId) ? [{ label: 'Attachment id', value: p.attachmentId as string }] : []),
    ],
  }),
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

/** `books.some_act` -> `Some act` for an action class without its own wording. */
const humanise = (actionClass: string): string => {
  const act = actionClass.split('.').pop() ?? actionClass;
  const words = act.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** `moveTasksTo` -> `Move tasks to`. */
const humaniseParam = (name: string): string => {
  const words = name.replace(/([A-Z])/g, ' $1').toLowerCase().trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/**
 * Any family's held act without its own wording: the act's name in words, and each held param as a fact (the
 * exact params are shown in full beside it, behind the hash).
 */
function genericAct(actionClass: string, params: Record<string, unknown>): PlainAct {
  return {
    title: humanise(actionClass),
    facts: Object.entries(params).map(([k, v]) => ({
      label: humaniseParam(k),
      value: typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v),
    })),
  };
}

/** What the inbox titles an approval bound to no held act: approving it releases nothing, whatever it says. */
export const UNBOUND_TITLE = 'Not a signature';

export function describeApproval(a: { actionClass: string; subject: { summary: string }; heldAct: HeldAct | null }): PlainAct {
  const amounts = () => [...a.subject.summary.matchAll(new RegExp(MONEY, 'g'))].map((m) => ({ label: 'Amount', value: m[0] }));
  // Bound to no held act, the summary is the requester's own words: never dressed up as a signature act.
  if (!a.heldAct) return { title: `${UNBOUND_TITLE}: ${humanise(a.actionClass)}`, facts: amounts() };
  const params = a.heldAct.params;
  const known = ACTS[a.actionClass];
  if (known) {
    const plain = known(a.subject.summary, params);
    if (plain.facts.length > 0) return plain;
  }
  if (known) return { title: known(a.subject.summary, params).title, facts: amounts() };
  // Any other family's act: its params in plain words, and every amount the summary names.
  const generic = genericAct(a.actionClass, params);
  return { title: generic.title, facts: [...amounts(), ...generic.facts] };
}
