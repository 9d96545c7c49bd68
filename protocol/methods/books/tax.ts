import { z } from 'zod';
import { method } from '../../contract.js';
import { proofFields } from '../../schema.js';
import { date, ids, journalRef, outcome, page, pageParams, reason } from './common.js';

/*
 * Tax: the BAS (business activity statement), accrual basis, from the journal lines of the period, and the
 * obligations calendar (BAS, PAYG withholding, super guarantee, STP pay events). A held lodgement is never
 * reported as lodged: its status stays PREPARED or HELD until the signed act runs.
 */

export const LODGEMENT_STATUSES = ['DRAFT', 'PREPARED', 'HELD', 'LODGED'] as const;
export const BAS_LABELS = ['G1', 'G2', 'G3', 'G10', 'G11', '1A', '1B', 'W1', 'W2'] as const;
export type BasLabel = (typeof BAS_LABELS)[number];

const cents = (d: string) => z.number().int().describe(d);

export const BasLabels = z
  .strictObject({
    G1: cents('Total sales, GST included: -(amount + GST) over revenue lines coded GST, GST_FREE or INPUT_TAXED.'),
    G2: cents('Export sales: always 0 (the chart has no export tax code; exports would be coded GST_FREE and show in G1 and G3).'),
    G3: cents('Other GST-free sales: -amount over revenue lines coded GST_FREE.'),
    G10: cents('Capital purchases, GST included: amount + GST over lines on the fixed-asset cost accounts 710 and 720 coded GST, GST_FREE or INPUT_TAXED.'),
    G11: cents('Non-capital purchases, GST included: amount + GST over expense lines coded GST, GST_FREE or INPUT_TAXED.'),
    '1A': cents('GST on sales: -GST over revenue lines coded GST.'),
    '1B': cents('GST on purchases (credits): GST over purchase lines coded GST.'),
    W1: cents('Total salary and wages: the 477 lines of pay runs (a recall nets its run out).'),
    W2: cents('Amounts withheld (PAYG): the credits on 825 of pay runs (a recall nets its run out).'),
  })
  .describe('BAS labels in cents (the ATO form takes whole dollars). Accrual basis: journals dated within the period.');

export const Lodgement = z.strictObject({
  id: z.string().describe('bas_…'),
  periodStart: z.string(),
  periodEnd: z.string(),
  period: z.string().describe('The period as people write it, e.g. "1 Jul–30 Sep 2026".'),
  status: z
    .enum(LODGEMENT_STATUSES)
    .describe(
      'DRAFT (returned to the preparer: re-prepare it), PREPARED (awaiting a human signature), HELD (lodging blocked until returned and re-prepared), LODGED (signed; period locked).',
    ),
  statusNote: z.string().describe('What the status means for this lodgement, in words to relay: a HELD lodgement says held.'),
  labels: BasLabels.describe('The snapshot taken when it was last prepared: what a human signs.'),
  netCents: z.number().int().describe('1A + W2 - 1B: positive is payable to the ATO, negative a refund.'),
  preparedBy: z.string(),
  preparedAt: z.string(),
  holdReason: z.string().nullable(),
  heldAt: z.string().nullable(),
  returnReason: z.string().nullable().describe('Why it was last returned to the preparer.'),
  returnedAt: z.string().nullable(),
  lodgedBy: z.string().nullable(),
  lodgedAt: z.string().nullable().describe('Set only once the signed lodgement has run.'),
  approvalId: z.string().nullable().describe('The human approval that backed the lodgement.'),
  journalId: z.string().nullable().describe('The clearing journal posted on lodgement (Dr 820, Dr 825 / Cr 830).'),
});
export type Lodgement = z.infer<typeof Lodgement>;

export const OBLIGATION_KINDS = ['BAS', 'PAYGW', 'SUPER', 'STP'] as const;

export const Obligation = z.strictObject({
  key: z
    .string()
    .describe(
      'Stable key of the obligation, e.g. "BAS 2026-07-01..2026-09-30", "SUPER pay_…" (a pay run\'s super; "SUPER pay_… first pay" for its first contributions: new or re-employed employees\' first pays and first pays to a new fund; "SUPER pay_… out of cycle" for an out-of-cycle run; "SUPER 2026-04-01..2026-06-30" before Payday Super) or "STP stp_…".',
    ),
  kind: z
    .enum(OBLIGATION_KINDS)
    .describe('BAS (GST), PAYGW (withholding, reported on the BAS), SUPER (super guarantee contributions), STP (a Single Touch Payroll pay event).'),
  periodStart: z.string(),
  periodEnd: z.string(),
  dueDate: z.string(),
  status: z
    .string()
    .describe(
      'BAS and PAYGW: NOT_PREPARED, DRAFT, PREPARED, HELD or LODGED (the lodgement of that quarter). SUPER: UNPAID (nothing sent), SENT (some or all sent, not all received: sentCents and receivedCents say how much) or RECEIVED (the funds acknowledged all of it); sent money is bank lines coded to 826, received money fund acknowledgements (books.receiptsRegister, link kind super); each settles the oldest due first. STP: the pay event status as payroll records it.',
    ),
  lodgementId: z.string().nullable().describe('BAS and PAYGW: the lodgement for this period, if any.'),
  amountCents: z
    .number()
    .int()
    .nullable()
    .describe(
      'BAS: the net amount (lodgement snapshot, else computed from the books now); PAYGW: W2; SUPER: the super owed (by pay run from 1 July 2026, by quarter before); STP: null.',
    ),
  estimated: z
    .boolean()
    .describe(
      'BAS and PAYGW: true when the amount is computed from the books now rather than a prepared snapshot. SUPER: true when the due date is estimated (an out-of-cycle run with no regular run paid after it yet: the next regular payday is estimated from the pay cycle).',
    ),
  overdue: z
    .boolean()
    .describe(
      'Past its due date and not done (BAS and PAYGW not lodged, STP not accepted; SUPER not received by the funds in full by its due date, from the day after: sent on time but received late is overdue, and stays so, as late).',
    ),
  note: z
    .string()
    .describe(
      'The obligation in words; for SUPER the rule its due date came from, the public holidays it skipped (with their states) and what was sent and received.',
    ),
  sentCents: z.number().int().optional().describe('SUPER only: sent to the funds (bank lines coded to 826), oldest due first.'),
  receivedCents: z
    .number()
    .int()
    .optional()
    .describe('SUPER only: acknowledged as received by the funds, oldest due first. Super counts when the fund receives it.'),
  receivedOn: z.string().nullable().optional().describe('SUPER only: the day the funds had received all of it; null until then.'),
  dueRule: z
    .enum(['PAYDAY', 'FIRST_CONTRIBUTION', 'OUT_OF_CYCLE', 'QUARTERLY'])
    .optional()
    .describe(
      "SUPER only: PAYDAY (7 business days after payday), FIRST_CONTRIBUTION (20: a new or re-employed employee's first pay, or the first pay to a new fund), OUT_OF_CYCLE (7 after the next regular payday), QUARTERLY (28 days after the quarter, pay dates before 1 July 2026).",
    ),
  holidaysSkipped: z
    .array(z.strictObject({ date: z.string(), name: z.string(), states: z.array(z.string()).describe('Where it is a public holiday throughout.') }))
    .optional()
    .describe(
      'SUPER only: weekday public holidays the due date skipped. Under Payday Super a holiday throughout any state or territory is not a business day wherever the employer is (SGAA s 6(1) "business day"); part-state holidays (Melbourne Cup Day, Royal Hobart Show Day) are business days.',
    ),
});

const lodgementId = ids.lodgement();
const lodgementResult = z.strictObject({ lodgement: Lodgement, ...outcome });

export const tax = {
  taxPrepare: method({
    summary:
      'Prepare the BAS for a period (accrual basis: journals dated in it): snapshots G1, G2, G3, G10, G11, 1A, 1B, W1, W2 and the net amount (1A + W2 - 1B) -> PREPARED. ' +
      'periodEnd before periodStart is refused; a period overlapping a LODGED lodgement or the locked period is CONFLICT. A DRAFT or PREPARED lodgement for exactly this period is re-prepared in place (same id, fresh snapshot; nothing changes if the figures and status are the same); a HELD one is CONFLICT (return it to the preparer first); another overlapping unlodged lodgement is CONFLICT naming it.',
    params: z.strictObject({
      periodStart: date('First day of the period, e.g. 2026-07-01.'),
      periodEnd: date('Last day of the period, e.g. 2026-09-30; not before periodStart.'),
    }),
    result: lodgementResult,
    events: ['books.tax.prepare'],
    example: { periodStart: '2026-07-01', periodEnd: '2026-09-30' },
  }),
  taxHold: method({
    summary:
      'Hold a PREPARED lodgement: HELD, lodging blocked (held, not lodged) until it is returned to the preparer (books.taxReturn) and re-prepared. Holding a held lodgement changes nothing; a DRAFT or LODGED one is CONFLICT.',
    params: z.strictObject({ id: lodgementId, reason: reason('Why it is held (kept with the lodgement and the event).') }),
    result: lodgementResult,
    events: ['books.tax.hold'],
    example: { id: 'bas_0123456789abcdef', reason: 'Query on the October supplier invoices' },
  }),
  taxReturn: method({
    summary:
      'Send a PREPARED or HELD lodgement back to the preparer: DRAFT, reason kept; re-prepare it with books.taxPrepare. A DRAFT is already with the preparer and a LODGED one cannot be returned (CONFLICT). Not idempotent: every call is a new act.',
    params: z.strictObject({ id: lodgementId, reason: reason('What the preparer should fix.') }),
    result: lodgementResult,
    events: ['books.tax.return'],
    example: { id: 'bas_0123456789abcdef', reason: 'Recode the bank fees as input taxed' },
  }),
  taxSignLodge: method({
    hold: { completion: 'retry' },
    summary:
      'Lodge a PREPARED BAS: a signature act (class books.tax_sign_lodge, subject the lodgement); without proof it answers a hold frame and nothing changes (the lodgement stays PREPARED). Only a PREPARED lodgement whose period has ended may be lodged (HELD or DRAFT: CONFLICT); lodging a LODGED one changes nothing. ' +
      'With proof: the labels are recomputed and must equal the snapshot the human approved (else CONFLICT: the books moved, re-prepare), and the signed payload carries the prepared figures, so an approval given before a re-preparation no longer fits (CONFLICT: hold again, file a new approval); posts the clearing journal dated periodEnd (Dr 820 by 1A - 1B, Dr 825 by W2 / Cr 830 by the net; zero lines skipped, no journal when all are zero), sets LODGED and locks the period through periodEnd.',
    params: z.strictObject({ id: lodgementId, ...proofFields }),
    result: z.strictObject({ lodgement: Lodgement, journalId: journalRef, approvalId: z.string().nullable(), ...outcome }),
    events: ['books.tax.lodge'],
    example: { id: 'bas_0123456789abcdef' },
  }),
  taxObligations: method({
    summary:
      'Tax obligations with due dates as at a date (default today): BAS, PAYG withholding, the super guarantee and STP pay events. ' +
      'The quarterly BAS (Jul–Sep due 28 Oct, Oct–Dec 28 Feb, Jan–Mar 28 Apr, Apr–Jun 28 Jul) with its lodgement status and net; PAYG withholding (on the same BAS, W2) for quarters with payroll; STP pay events (due on the pay date). ' +
      "Super: for pay dates from 1 July 2026 (Payday Super) one per pay run, due 7 business days after its pay date, 20 for first contributions (a new or re-employed employee's first pay, the first pay after a change to a new fund), an out-of-cycle run 7 after the next regular payday; business days skip weekends and any day that is a public holiday throughout any state or territory, wherever the org is (part-state holidays do not count); before 1 July 2026 by quarter, due 28 days after it. " +
      "Each super obligation is UNPAID, SENT or RECEIVED: super counts when the fund receives it, so it is overdue unless the funds received it in full by the due date (record the fund's acknowledgement with books.receiptsRegister, link kind super). " +
      'Shows the current and previous quarter and anything earlier that is overdue or open, soonest due first. Pages with cursor/limit.',
    params: z.strictObject({ asOf: date('As at this date (default today).').optional(), ...pageParams }),
    result: page('obligations', Obligation),
    example: { asOf: '2026-11-02', limit: 50 },
  }),
};
