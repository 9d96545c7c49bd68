import { ApiError } from '../../../protocol/errors.js';
import { ACC } from '../../../protocol/methods/books/chart.js';
import { payables as c } from '../../../protocol/methods/books/payables.js';
import { handler } from '../../core/handler.js';
import { isAssetCostAccount, registerAsset } from '../assets/register.js';
import { maskAccount, setContactBankDetails } from '../contacts.js';
import { today } from '../dates.js';
import { postJournal, type JournalLine } from '../journal.js';
import { formatCents } from '../money.js';
import { finish } from '../outcome.js';
import { booksPolicy, type BooksPolicy } from '../policy.js';
import { billViewOf } from './bills.js';
import { billLabel, fitSummary, loadBill, loadLines, type BillRow } from './model.js';

/**
 * billApprove: DRAFT -> AUTHORISED (posts the liability), or the release of a hold on an approved bill.
 * A bill flagged at capture (ABOVE FLOOR or NEW PAYEE) needs a human signature for either (rule PB-B1): without
 * one the call is refused with GOVERNANCE_NOT_READY and nothing is written.
 */

const bankDiffers = (r: BillRow): boolean => r.bank_bsb !== null && (r.bank_bsb !== r.payee_bsb || r.bank_account !== r.payee_account);

/** Why the bill needs a signature, in words: `ABOVE FLOOR (floor $5,000.00) and NEW PAYEE (first bill from this supplier)`. */
function heldWhy(r: BillRow, policy: BooksPolicy): string {
  const newPayee =
    r.bank_bsb && r.payee_bsb === null
      ? 'bank details given and none approved for this supplier yet'
      : bankDiffers(r)
        ? 'its bank details differ from the supplier’s approved ones'
        : 'first bill from this supplier';
  return r.flags
    .map((f) => (f === 'ABOVE FLOOR' ? `ABOVE FLOOR (floor ${formatCents(policy.materialityFloorCents)})` : `NEW PAYEE (${newPayee})`))
    .join(' and ');
}

/** What the human reads when asked to sign: the act, the money, the flags, and where the money would go. */
function signatureSummary(r: BillRow, releasing: boolean): string {
  const act = releasing ? `Release the hold (${r.hold_reason}) on approved bill` : 'Approve bill';
  const bank =
    r.flags.includes('NEW PAYEE') && r.bank_bsb
      ? `; new payee bank details BSB ${r.bank_bsb} account ${maskAccount(r.bank_account)} (${r.bank_account_name})`
      : '';
  return fitSummary(
    `${act} ${r.bill_id} for ${formatCents(r.total_cents)} incl. GST ${formatCents(r.gst_cents)}, due ${r.due_date}: ${r.flags.join(' and ')}${bank}; from ${r.contact_name}, ref ${r.reference}`,
  );
}

export const billApprove = handler(c.billApprove, async (ctx, p) => {
  const row = await loadBill(ctx.q, ctx.orgId, p.id, true);
  // The payload is fixed by the spec: same shape for every outcome.
  const event = {
    kind: 'books.bill.approve',
    entityId: row.bill_id,
    payload: { payee: row.contact_name, totalCents: row.total_cents, heldReason: row.held_reason, runId: row.run_id },
  };
  if (row.status === 'VOIDED' || row.status === 'DELETED') {
    throw new ApiError(
      'CONFLICT',
      `billApprove: bill ${billLabel(row)} is ${row.status} (returned to the supplier); capture a new bill if it is owed after all`,
    );
  }
  const releasing = row.status === 'AUTHORISED' && row.on_hold;
  if (row.status !== 'DRAFT' && !releasing) {
    if (row.held_reason) await ctx.verifyProof({ actionClass: 'books.bill_approve', subjectId: row.bill_id, summary: '', params: p });
    return finish(
      ctx,
      event,
      { bill: await billViewOf(ctx, row.bill_id), journalId: null, assetIds: [], approvalId: null, changed: false },
      `Bill ${billLabel(row)} was already approved (${row.status}); nothing changed`,
    );
  }
  const policy = await booksPolicy(ctx.q, ctx.orgId);
  let approvalId: string | null = null;
  if (row.held_reason) {
    // Before any write: without proof the pipeline refuses and keeps only the held act.
    const why = heldWhy(row, policy);
    const proof = await ctx.requireSignature({
      actionClass: 'books.bill_approve',
      subjectId: row.bill_id,
      summary: signatureSummary(row, releasing),
      params: p,
      refuseWithoutProof: releasing
        ? `billApprove: releasing the hold on bill ${row.bill_id} from ${row.contact_name} for ${formatCents(row.total_cents)} needs a human signature: the bill is held ${why}, rule PB-B1.`
        : `billApprove: bill ${row.bill_id} from ${row.contact_name} for ${formatCents(row.total_cents)} is held ${why}, rule PB-B1.`,
    });
    approvalId = proof.approvalId;
  }
  if (releasing) {
    await ctx.q.query(
      'UPDATE books_bills SET on_hold = false, hold_reason = NULL, held_at = NULL, held_by = NULL, updated_at = now() WHERE org_id = $1 AND bill_id = $2',
      [ctx.orgId, row.bill_id],
    );
    return finish(
      ctx,
      event,
      { bill: await billViewOf(ctx, row.bill_id), journalId: null, assetIds: [], approvalId, changed: true },
      `Released the hold (${row.hold_reason}) on bill ${billLabel(row)}: it can go in a payment run again; nothing posted${approvalId ? `; signed off under approval ${approvalId}` : ''}`,
    );
  }

  // The bill posts on its own date unless that period is locked (a lodged BAS): then today.
  const now = today(ctx.deps);
  const date = policy.lockDate && row.issue_date <= policy.lockDate ? now : row.issue_date;
  const lines = (await loadLines(ctx.q, ctx.orgId, [row.bill_id])).get(row.bill_id) ?? [];
  const journalLines: JournalLine[] = lines.map((l) => ({
    account: l.account_code,
    amountCents: l.amount_cents - l.gst_cents,
    taxCode: l.tax_code,
    taxCents: l.gst_cents,
    contactId: row.contact_id,
    description: l.description,
  }));
  journalLines.push(
    { account: ACC.gst, amountCents: row.gst_cents, description: `GST on bill ${row.reference} (${row.contact_name})` },
    { account: ACC.payables, amountCents: -row.total_cents, contactId: row.contact_id, description: `Bill ${row.reference}` },
  );
  const journalId = await postJournal(ctx.q, ctx.orgId, {
    date,
    narration: `Bill ${row.reference} from ${row.contact_name}`,
    sourceKind: 'bill',
    sourceId: row.bill_id,
    postedBy: ctx.principal.id,
    lines: journalLines,
  });
  const assetIds: string[] = [];
  for (const l of lines.filter((x) => isAssetCostAccount(x.account_code))) {
    const assetId = await registerAsset(ctx.q, ctx.orgId, {
      name: l.description,
      costAccount: l.account_code,
      costCents: l.amount_cents - l.gst_cents,
      purchaseDate: row.issue_date,
      sourceKind: 'bill',
      sourceId: row.bill_id,
      createdBy: ctx.principal.id,
    });
    await ctx.q.query('UPDATE books_bill_lines SET asset_id = $4 WHERE org_id = $1 AND bill_id = $2 AND line_no = $3', [
      ctx.orgId,
      row.bill_id,
      l.line_no,
      assetId,
    ]);
    assetIds.push(assetId);
  }
  // Only a human-backed approval changes where the supplier's money goes.
  const bankSaved = approvalId !== null && row.flags.includes('NEW PAYEE') && bankDiffers(row);
  if (bankSaved) {
    await setContactBankDetails(ctx.q, ctx.orgId, row.contact_id, {
      bsb: row.bank_bsb as string,
      accountNumber: row.bank_account as string,
      accountName: row.bank_account_name ?? '',
    });
  }
  await ctx.q.query(
    `UPDATE books_bills SET status = 'AUTHORISED', journal_id = $3, approval_id = $4, approved_by = $5, approved_at = now(), updated_at = now()
        WHERE org_id = $1 AND bill_id = $2`,
    [ctx.orgId, row.bill_id, journalId, approvalId, ctx.principal.id],
  );
  const bill = await billViewOf(ctx, row.bill_id);
  const notes = [
    approvalId ? `signed off under approval ${approvalId}` : '',
    assetIds.length ? `registered asset ${assetIds.join(', ')}` : '',
    bankSaved ? `the supplier's bank details are now BSB ${row.bank_bsb} account ${maskAccount(row.bank_account)}` : '',
    row.on_hold ? `still on hold (${row.hold_reason}): call books.billApprove again to release it` : '',
  ].filter(Boolean);
  return finish(
    ctx,
    event,
    { bill, journalId, assetIds, approvalId, changed: true },
    `Approved bill ${billLabel(row)}: posted on ${date} Dr ${formatCents(row.total_cents - row.gst_cents)} over ${lines.length} line${lines.length === 1 ? '' : 's'} + Dr 820 GST ${formatCents(row.gst_cents)} / Cr 800 ${formatCents(row.total_cents)}${notes.length ? `; ${notes.join('; ')}` : ''}`,
  );
});
