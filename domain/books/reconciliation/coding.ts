import { badRequest } from '../../../protocol/errors.js';
import { ACC, ACCOUNTS, type TaxCode } from '../../../protocol/methods/books/chart.js';
import type { JournalLine } from '../journal.js';
import { gstOf } from '../money.js';
import { isAssetCostAccount } from '../assets/register.js';
import type { Direction } from './model.js';

/*
 * Direct coding of a bank line to an account: which accounts may take it, and the journal lines of the other
 * side. Shared by matchAccept (the first coding) and lineRecode (reversal of the old coding + the new one).
 */

/** Why an account cannot take a bank line directly, and what to do instead. */
const NOT_CODABLE: Record<string, string> = {
  [ACC.bank]: '090 Bank is the account the line is already on; code the other side (a transfer you cannot place yet goes to 850 Suspense)',
  [ACC.receivables]: '610 Accounts receivable is a control account: match the line to the invoice instead (target {kind: "invoice", invoiceId})',
  [ACC.payables]:
    '800 Accounts payable is a control account: match the line to the bill instead (target {kind: "bill", billId}; a scheduled payment run\'s debit: {kind: "paymentRun", paymentRunId})',
  [ACC.expenseClaims]: '801 Unpaid expense claims is a control account: match the line to the claim instead (target {kind: "claim", claimId})',
  [ACC.wagesPayable]: '804 Wages payable is a control account: match the line to the pay run instead (target {kind: "payRun", payRunId})',
  [ACC.gst]:
    '820 GST is posted by the tax code: code the line to its expense or revenue account with taxCode GST (a BAS payment or refund goes to 830 ATO clearing)',
  '711': '711 is accumulated depreciation: only depreciation runs and disposals post there',
  '721': '721 is accumulated depreciation: only depreciation runs and disposals post there',
};

/** Refuse an account a bank line cannot be coded to, naming `field`; returns the tax code to use. */
export function checkCodingAccount(field: string, account: string, taxCode: TaxCode | undefined, direction: Direction): TaxCode {
  const why = NOT_CODABLE[account];
  if (why) throw badRequest(field, why);
  if (direction === 'in' && isAssetCostAccount(account)) {
    throw badRequest(
      field,
      `money in cannot be coded to ${account} ${ACCOUNTS.get(account)?.name}: that account holds asset costs (a sale of an asset is books.assetDispose)`,
    );
  }
  return taxCode ?? (ACCOUNTS.get(account)?.defaultTaxCode as TaxCode);
}

/** `429 General expenses (GST)`. */
export const codingLabel = (account: string, taxCode: TaxCode): string => `${account} ${ACCOUNTS.get(account)?.name ?? ''} (${taxCode})`;

/** Net and GST of a GST-inclusive amount under a tax code: GST = round(amount / 11) only for GST. */
export function splitGst(grossCents: number, taxCode: TaxCode): { net: number; gst: number } {
  const gst = taxCode === 'GST' ? gstOf(grossCents) : 0;
  return { net: grossCents - gst, gst };
}

/**
 * The other side of a bank line of `amountCents` coded to `account`: the account line (net, carrying the tax code
 * and its GST) and the 820 line. Money out debits them, money in credits them; the bank line is the negation of
 * their sum.
 */
export function codingSide(amountCents: number, account: string, taxCode: TaxCode, description: string): JournalLine[] {
  const sign = amountCents < 0 ? 1 : -1;
  const { net, gst } = splitGst(Math.abs(amountCents), taxCode);
  return [
    { account, amountCents: sign * net, taxCode, taxCents: sign * gst, description },
    { account: ACC.gst, amountCents: sign * gst, description: `GST on ${description}` },
  ];
}

/** The whole journal of a direct coding, debits first: out Dr account + Dr 820 / Cr 090; in Dr 090 / Cr account + Cr 820. */
export function directCodingLines(amountCents: number, account: string, taxCode: TaxCode, description: string): JournalLine[] {
  const bank: JournalLine = { account: ACC.bank, amountCents, description };
  const side = codingSide(amountCents, account, taxCode, description);
  return amountCents < 0 ? [...side, bank] : [bank, ...side];
}
