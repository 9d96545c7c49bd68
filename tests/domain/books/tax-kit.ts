import { postJournal, type JournalLine } from '../../../domain/books/journal.js';
import { TestClient, freshOrg } from '../../helpers/harness.js';
import { checkInvariants, type BooksServer } from './setup.js';
import { fileAndApprove } from '../../helpers/calls.js';

/** Kit of the tax and assets tests: clean orgs, activity built by hand, the invariants. */

export const TODAY = '2026-11-02';
export const Q3 = { periodStart: '2026-07-01', periodEnd: '2026-09-30' };

/** The claim a held lodgement must never make, in any text ("held, not lodged" is allowed). */
export const CLAIMS_LODGED = /\b(?:was|is|been|now) lodged\b|\blodged (?:on|at)\b|status: 'LODGED'/i;

export interface Org {
  orgId: string;
  client: TestClient;
  approver: { apiKey: string };
  agent: { apiKey: string };
}

/**
 * Jul–Sep 2026 of `quarterActivity`, every figure by hand:
 *   sales (GST):   110000 (GST 10000) + 55000 (GST 5000) - credit note 11000 (GST 1000)
 *   GST-free sale 30000 on 200; input-taxed sale 20000 on 260; a BAS_EXCLUDED line on 260 (ignored)
 *   purchases:     429 GST 33000 (GST 3000), 429 GST_FREE 8000, 404 INPUT_TAXED 1500, 720 GST 242000 (GST 22000)
 *   payroll:       run gross 500000, PAYG 100000, super 60000; a run 100000/20000/12000 and its recall (nets out)
 *   outside:       a sale on 3 Oct, a manual wages line (not a pay run), depreciation (BAS_EXCLUDED)
 */
export const Q3_LABELS = {
  G1: 110000 + 55000 - 11000 + 30000 + 20000,
  G2: 0,
  G3: 30000,
  G10: 242000,
  G11: 33000 + 8000 + 1500,
  '1A': 10000 + 5000 - 1000,
  '1B': 3000 + 22000,
  W1: 500000,
  W2: 100000,
};
export const Q3_NET = 14000 + 100000 - 25000;

export function taxKit(s: BooksServer) {
  async function booksOrg(): Promise<Org> {
    const org = await freshOrg(s.runtime, 'tax');
    const client = new TestClient(s.app, org.adminKey);
    const approver = await client.mint({ tier: 'approver' }, 'finance lead');
    const agent = await client.mint({ tier: 'agent' }, 'books agent');
    return { orgId: org.orgId, client, approver, agent };
  }

  /** File the approval a hold names (as the agent) and approve it (as the human). */
  const approve = (o: Org, hold: any): Promise<string> => fileAndApprove(o.client, hold.approval, { requester: o.agent.apiKey, approver: o.approver.apiKey });

  const post = (o: Org, date: string, sourceKind: string, lines: JournalLine[]) =>
    s.runtime.db.tx((q) => postJournal(q, o.orgId, { date, narration: `test ${sourceKind}`, sourceKind, sourceId: 'test', postedBy: 'test', lines }));

  /** A sales invoice sent on `date` (invoiceSend dates it today): Dr 610 / Cr 200 (GST) / Cr 820. */
  async function sale(o: Org, date: string, totalCents: number) {
    s.clock.set(date);
    const inv = (await o.client.ok('books.invoiceDraft', { payeeName: 'Harbour Cafe', description: 'Bookkeeping', totalCents, dueDays: 14 })).invoice;
    const sent = await o.client.ok('books.invoiceSend', { id: inv.id });
    s.clock.set(TODAY);
    return sent.invoice;
  }

  /** A purchase paid from the bank: Dr account (+ Dr 820 GST) / Cr 090. */
  function purchase(o: Org, date: string, account: string, gross: number, taxCode: 'GST' | 'GST_FREE' | 'INPUT_TAXED') {
    const gst = taxCode === 'GST' ? Math.round(gross / 11) : 0;
    return post(o, date, 'manual', [
      { account, amountCents: gross - gst, taxCode, taxCents: gst },
      { account: '820', amountCents: gst },
      { account: '090', amountCents: -gross },
    ]);
  }

  /** A pay run as the payroll area posts it (net paid at once, so 804 stays with its subledger); sign -1 recalls. */
  function payRun(o: Org, date: string, gross: number, payg: number, superCents: number, sourceKind = 'pay_run', sign = 1) {
    return post(o, date, sourceKind, [
      { account: '477', amountCents: sign * gross },
      { account: '478', amountCents: sign * superCents },
      { account: '825', amountCents: -sign * payg },
      { account: '826', amountCents: -sign * superCents },
      { account: '090', amountCents: -sign * (gross - payg) },
    ]);
  }

  async function quarterActivity(o: Org) {
    const first = await sale(o, '2026-07-10', 110000);
    await sale(o, '2026-08-05', 55000);
    s.clock.set('2026-08-20');
    await o.client.ok('books.invoiceCreditNote', { id: first.id, amountCents: 11000, reason: 'Discount' });
    s.clock.set(TODAY);
    await post(o, '2026-08-21', 'manual', [
      { account: '090', amountCents: 30000 },
      { account: '200', amountCents: -30000, taxCode: 'GST_FREE' },
    ]);
    await post(o, '2026-08-22', 'manual', [
      { account: '090', amountCents: 25000 },
      { account: '260', amountCents: -20000, taxCode: 'INPUT_TAXED' },
      { account: '260', amountCents: -5000, taxCode: 'BAS_EXCLUDED' },
    ]);
    await purchase(o, '2026-07-15', '429', 33000, 'GST');
    await purchase(o, '2026-07-16', '429', 8000, 'GST_FREE');
    await purchase(o, '2026-07-17', '404', 1500, 'INPUT_TAXED');
    await purchase(o, '2026-07-18', '720', 242000, 'GST');
    await post(o, '2026-09-30', 'depreciation', [
      { account: '416', amountCents: 4000, taxCode: 'BAS_EXCLUDED' },
      { account: '721', amountCents: -4000 },
    ]);
    await payRun(o, '2026-09-15', 500000, 100000, 60000);
    await payRun(o, '2026-09-20', 100000, 20000, 12000);
    await payRun(o, '2026-09-22', 100000, 20000, 12000, 'pay_run_recall', -1);
    await post(o, '2026-09-23', 'manual', [
      { account: '477', amountCents: 1000 },
      { account: '090', amountCents: -1000 },
    ]);
    await sale(o, '2026-10-03', 22000);
  }

  const prepared = async (o: Org, period = Q3) => (await o.client.ok('books.taxPrepare', period)).lodgement;
  const lines = (o: Org, journalId: string) =>
    s.runtime.db.query<{ account_code: string; amount_cents: number }>(
      'SELECT account_code, amount_cents FROM books_journal_lines WHERE org_id = $1 AND journal_id = $2 ORDER BY line_no',
      [o.orgId, journalId],
    );
  const journalCount = async (o: Org) => (await s.runtime.db.query('SELECT 1 FROM books_journals WHERE org_id = $1', [o.orgId])).length;
  const lockDate = async (o: Org) => (await o.client.get('policy')).body.books.lockDate as string | null;
  const row = async (o: Org, id: string) =>
    (await s.runtime.db.query<any>('SELECT status, lodged_at, journal_id FROM books_tax_lodgements WHERE org_id = $1 AND lodgement_id = $2', [o.orgId, id]))[0];
  const invariants = (o: Org) => checkInvariants(s.runtime.db, o.orgId);

  return { booksOrg, approve, post, sale, purchase, payRun, quarterActivity, prepared, lines, journalCount, lockDate, row, invariants };
}
