import { z } from 'zod';
import { method } from '../../contract.js';
import { proofFields, text } from '../../schema.js';
import { abn, accountCode, amountCents, date, ids, journalRef, MAX_CENTS, name, outcome, page, pageParams, signedCents, taxCode } from './common.js';

/*
 * Reconciliation: bank feed lines (they arrive only from the bank, through the statement import), matching them
 * to documents or coding them to an account, holds above the materiality floor, receipts, recodes and manual
 * journals. Money in is positive, money out negative.
 */

export const FEED_STATUSES = ['UNMATCHED', 'SUGGESTED', 'HELD', 'RECONCILED'] as const;

/*
 * Match targets. A document kind is listed only once its area's settlement function exists, so a caller can
 * never pick a target the server cannot post.
 */
const invoiceTarget = z.strictObject({
  kind: z.literal('invoice'),
  invoiceId: ids.invoice('The authorised invoice the money came in for (money in only).'),
});
const billTarget = z.strictObject({
  kind: z.literal('bill'),
  billId: ids.bill('The authorised bill the money paid (money out; at most the amount due).'),
});
const claimTarget = z.strictObject({
  kind: z.literal('claim'),
  claimId: ids.claim('The approved expense claim the money reimbursed (money out; at most the amount owed).'),
});
const payRunTarget = z.strictObject({
  kind: z.literal('payRun'),
  payRunId: ids.payRun('The posted pay run whose net wages the money paid (money out; at most the wages owed).'),
});
const paymentRunTarget = z.strictObject({
  kind: z.literal('paymentRun'),
  paymentRunId: ids.paymentRun('The executed payment run this one debit paid (money out; exactly the run total).'),
});
const accountTarget = z.strictObject({
  kind: z.literal('account'),
  account: accountCode('Direct coding: the account of the other side (not 090, 610, 800, 801, 804, 820, 711 or 721).'),
  taxCode: taxCode('Default: the account’s default tax code.').optional(),
});

export const MatchTarget = z
  .discriminatedUnion('kind', [invoiceTarget, billTarget, claimTarget, payRunTarget, paymentRunTarget, accountTarget])
  .describe('What the bank line pays or is: a document of the matching direction, or `{kind: "account"}` to code it directly.');
export type MatchTarget = z.output<typeof MatchTarget>;

/** The document kinds a line can be matched to (the union above without `account`). */
export const DOC_KINDS = ['invoice', 'bill', 'claim', 'payRun', 'paymentRun'] as const;
export type DocKind = (typeof DOC_KINDS)[number];

export const Suggestion = z.strictObject({
  kind: z.enum(DOC_KINDS),
  id: z.string(),
  label: z.string().describe('How messages name the document, e.g. `INV-0007 (Harbour Cafe)`.'),
  amountDueCents: z.number().int().describe('Still owed on the document (a payment run: its total).'),
  date: z.string().nullable().describe('Due date (invoice, bill), claim date or pay date.'),
  score: z.strictObject({
    exactAmount: z.boolean().describe('The line amount equals the amount due.'),
    amountDiffCents: z.number().int().describe('amount due - |line amount| (>= 0: a line never pays more than is due).'),
    daysApart: z.number().int().nullable().describe('Days between the line date and the document date.'),
    contactMatchPercent: z.number().int().describe('How much of the contact name appears in the line payee/description, 0 to 100.'),
  }),
  reasons: z.array(z.string()).describe('The ranking in words: amount, date, contact.'),
  target: MatchTarget.describe('Pass this as matchAccept’s target to accept the suggestion.'),
});

export const FeedLine = z.strictObject({
  id: z.string().describe('fl_…'),
  bankTxnId: z.string().describe('The bank’s transaction id (FITID, the CSV id column, or a sha256 of the row when the file has none).'),
  date: z.string(),
  amountCents: z.number().int().describe('Money in positive, money out negative; never 0.'),
  direction: z.enum(['in', 'out']),
  description: z.string(),
  payee: z.string().nullable(),
  reference: z.string().nullable(),
  status: z
    .enum(FEED_STATUSES)
    .describe('UNMATCHED (no candidate), SUGGESTED (unmatched with a candidate), HELD (above the floor, awaiting books.matchHoldResolve), RECONCILED.'),
  target: MatchTarget.nullable().describe('HELD: the intended match (nothing posted yet); RECONCILED: the match; null otherwise.'),
  journalId: z.string().nullable().describe('The journal that posted the line (null while unposted, and for a payment run: the run posted).'),
  heldAt: z.string().nullable(),
  heldBy: z.string().nullable(),
  approvalId: z.string().nullable().describe('The approval that released the hold, when one was needed.'),
  reconciledAt: z.string().nullable(),
  importId: z.string().describe('The statement import that brought the line (imp_…).'),
  suggestion: Suggestion.nullable().describe('Best candidate of an unmatched line: by amount, then date, then contact.'),
  suggestions: z.array(Suggestion).describe('Up to 3 candidates, best first (unmatched lines only).'),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type FeedLine = z.infer<typeof FeedLine>;

export const Receipt = z.strictObject({
  id: z.string().describe('rcpt_…'),
  supplier: z.string(),
  abn: z.string().nullable(),
  date: z.string(),
  totalCents: z.number().int(),
  gstCents: z.number().int(),
  fileRef: z.string(),
  taxInvoice: z.boolean(),
  gstClaimable: z.boolean().describe('false when the purchase is above the tax-invoice threshold without a valid tax invoice.'),
  flags: z.array(z.literal('NO TAX INVOICE')),
  link: z
    .strictObject({ kind: z.enum(['line', 'bill', 'claim', 'super']), id: z.string() })
    .nullable()
    .describe('What it supports; super: a fund’s acknowledgement of the super contribution sent by that bank line.'),
  createdAt: z.string(),
});

export const JournalLineIn = z.strictObject({
  account: accountCode('The account; not a control or tax account (610, 800, 801, 804, 820, 825, 826).'),
  amountCents: signedCents('Debit positive, credit negative, in cents.'),
  description: text({ max: 500, description: 'What this line is for.' }).optional(),
});

const lineId = ids.feedLine('The bank feed line (fl_…).');

export const reconciliation = {
  matchAccept: method({
    summary:
      "Match an UNMATCHED bank line, dated the line date, through the document's own settlement: money in to an authorised invoice (Dr 090 / Cr 610); money out to an authorised bill (Dr 800 / Cr 090), an approved expense claim (Dr 801 / Cr 090) or a posted pay run's net wages (Dr 804 / Cr 090), each at most the amount due; or money out to an executed payment run, exactly its total (no journal: the run posted). Or code it to an account (direct coding; the tax code defaults to the account's): money out Dr account net + Dr 820 GST / Cr 090, money in Dr 090 / Cr account net + Cr 820, GST = round(amount / 11) for GST; 710/720 registers a fixed asset at the net cost. Not 090, 610, 800, 801, 804 or 820 (use the document target), 711 or 721. Above the materiality floor (|amount| strictly greater) the line goes HELD with the target stored and nothing posted: release it with books.matchHoldResolve. The same target on a reconciled line changes nothing; another target, or a held line, is CONFLICT.",
    params: z.strictObject({ lineId, target: MatchTarget }),
    result: z.strictObject({
      line: FeedLine,
      journalId: journalRef,
      paymentId: z.string().nullable().describe('The payment row of a document match (pmt_…).'),
      assetId: z.string().nullable().describe('The fixed asset registered by a direct coding on 710/720.'),
      ...outcome,
    }),
    events: ['books.feed.match'],
    example: { lineId: 'fl_0123456789abcdef', target: { kind: 'account', account: '429', taxCode: 'GST' } },
  }),
  matchHoldResolve: method({
    hold: { completion: 'retry', when: 'it approves a line above the materiality floor' },
    summary:
      'Resolve a HELD bank line. approve: re-checks that the stored target still fits, then posts exactly as books.matchAccept would; above the floor it is a signature act (action class books.match_hold_resolve, subject the line): without proof it answers a hold frame (once a human approves, retry with approvalId), and the proof must be filed after the line was held. reject: the line returns to UNMATCHED with its target cleared; it moves no money, so it needs no signature. A line that is not HELD is CONFLICT.',
    params: z.strictObject({
      lineId,
      decision: z.enum(['approve', 'reject']).describe('approve posts the held match; reject returns the line to UNMATCHED.'),
      ...proofFields,
    }),
    result: z.strictObject({
      line: FeedLine,
      decision: z.enum(['approve', 'reject']),
      journalId: journalRef,
      paymentId: z.string().nullable(),
      assetId: z.string().nullable(),
      approvalId: z.string().nullable().describe('The approval that backed a release above the floor.'),
      ...outcome,
    }),
    events: ['books.feed.resolve'],
    example: { lineId: 'fl_0123456789abcdef', decision: 'approve' },
  }),
  receiptsRegister: method({
    summary:
      'Record a purchase receipt: supplier, ABN, date, GST-inclusive total, GST (default round(total / 11), at most that), the stored file’s reference, whether it is a valid tax invoice, and optionally the bank line, bill or claim it supports (which must exist). Above the tax-invoice threshold ($82.50) without a tax invoice it is flagged NO TAX INVOICE: no GST credit can be claimed on it. ' +
      'Also records a super fund’s acknowledgement (link kind super, the bank line coded to 826 that sent it): supplier is the fund or clearing house, date the day the fund received the money (on or after the line’s date, not in the future), totalCents what it received (at most what the line sent less earlier acknowledgements of it), no GST; super obligations count it as received. Posts no journal.',
    params: z.strictObject({
      supplier: name('The supplier, as on the receipt.'),
      abn: abn.optional(),
      date: date('The purchase date on the receipt.'),
      totalCents: amountCents('GST-inclusive total in cents.'),
      gstCents: z
        .number({ message: 'must be an integer number of cents' })
        .int('must be an integer number of cents')
        .min(0, 'must be >= 0')
        .max(MAX_CENTS, `must be at most ${MAX_CENTS} cents`)
        .describe('GST included in the total (default round(total / 11); at most that).')
        .optional(),
      fileRef: text({ min: 1, max: 2000, description: 'Reference or URL of the stored receipt file.' }),
      taxInvoice: z.boolean().describe('true when the document is a valid tax invoice (needed above $82.50 to claim GST).'),
      link: z
        .discriminatedUnion('kind', [
          z.strictObject({ kind: z.literal('line'), lineId }),
          z.strictObject({ kind: z.literal('bill'), billId: ids.bill() }),
          z.strictObject({ kind: z.literal('claim'), claimId: ids.claim() }),
          z
            .strictObject({ kind: z.literal('super'), lineId: ids.feedLine('The bank line that sent the super (coded to 826).') })
            .describe(
              'A super fund’s (or clearing house’s) acknowledgement that the fund received the contribution sent by this bank line; date is the day the fund received it, totalCents what it received. Super counts when the fund receives it: books.taxObligations shows it RECEIVED, and late when received after its due date. No GST: gstCents must be 0 or left out, taxInvoice false.',
            ),
        ])
        .describe(
          'What the receipt supports: a bank line, a bill, an expense claim of this org, or (super) a fund’s acknowledgement of super sent by a bank line.',
        )
        .optional(),
    }),
    result: z.strictObject({ receipt: Receipt, ...outcome }),
    events: ['books.receipt.register'],
    example: { supplier: 'Officeworks', date: '2026-11-03', totalCents: 12980, fileRef: 'receipts/2026-11/officeworks-0311.pdf', taxInvoice: true },
  }),
  lineRecode: method({
    summary:
      'Recode a RECONCILED bank line that was coded directly to an account: one reclass journal dated the line date (refused in a locked period) reverses the old coding and posts the new one (the GST moves too when the tax code changes); the line keeps the new coding. Recoding to 710/720 registers a fixed asset; a line coded to 710/720 is not recoded (its asset is registered). Lines matched to a document are refused: fix the document instead. The same account and tax code changes nothing. Every call is a new act.',
    params: z.strictObject({
      lineId,
      account: accountCode('The new account (same rules as direct coding).'),
      taxCode: taxCode('Default: the new account’s default tax code.').optional(),
    }),
    result: z.strictObject({ line: FeedLine, journalId: journalRef, assetId: z.string().nullable(), ...outcome }),
    events: ['books.feed.recode'],
    example: { lineId: 'fl_0123456789abcdef', account: '404', taxCode: 'INPUT_TAXED' },
  }),
  journalPost: method({
    summary:
      'Post a balanced manual journal: 2 to 100 lines, debits positive and credits negative, summing to exactly 0, dated in an open period. Control and tax accounts (610, 800, 801, 804, 820, 825, 826) are refused: their documents and the tax logic post them. Lines carry tax code BAS_EXCLUDED (a manual journal is not on the BAS).',
    params: z.strictObject({
      date: date('The journal date; not in a locked period.'),
      narration: text({ min: 1, max: 500, description: 'Why the journal is posted.' }),
      lines: z.array(JournalLineIn).min(2, 'must have at least 2 lines').max(100, 'must have at most 100 lines').describe('The lines; they must sum to 0.'),
    }),
    result: z.strictObject({
      journalId: z.string().describe('jnl_…'),
      date: z.string(),
      totalDebitsCents: z.number().int(),
      ...outcome,
    }),
    events: ['books.journal.post'],
    example: {
      date: '2026-11-30',
      narration: 'Reclassify October stationery to general expenses',
      lines: [
        { account: '429', amountCents: 25000, description: 'Stationery' },
        { account: '850', amountCents: -25000 },
      ],
    },
  }),
  feedLines: method({
    summary:
      'Bank feed lines in import order with their status and, for unmatched ones, the best suggestion and the top 3 (ranked by amount: exact first, then closest; then by the closest due or pay date; then by how well the contact name matches the payee). Filter by status and date. SUGGESTED and UNMATCHED both page over stored unmatched lines and keep those with (or without) a suggestion, so a page may hold fewer than limit lines: follow nextCursor until it is null.',
    params: z.strictObject({
      status: z.enum(FEED_STATUSES).describe('Only lines in this status.').optional(),
      dateFrom: date('Only lines dated on or after this date.').optional(),
      dateTo: date('Only lines dated on or before this date.').optional(),
      ...pageParams,
    }),
    result: page('feedLines', FeedLine),
    example: { status: 'SUGGESTED', limit: 50 },
  }),
};

/** Body of the admin path `POST /api/v1/admin/books.importStatement` (not a registry method: see docs/cli.md). */
export const ImportStatementBody = z.strictObject({
  format: z.enum(['csv', 'ofx']).describe('csv (columns by header name) or ofx (1.x SGML or 2.x XML).'),
  content: z.string().min(1, 'must not be empty').describe('The statement file, as text.'),
  fileName: text({ min: 1, max: 255, description: 'The file’s name, kept with the import.' }).optional(),
});
