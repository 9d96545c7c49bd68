import { postJournal } from '../../../domain/books/journal.js';
import { newId } from '../../../domain/core/ids.js';
import { TestClient, freshOrg } from '../../helpers/harness.js';
import { feedLine } from './reconciliation-kit.js';
import type { BooksServer } from './setup.js';

/** Helpers of the Payday Super tests: a clean org, signed pay runs recorded directly, super sent and received. */

export interface Slip {
  employee: { id: string; name: string };
  superCents: number;
}

export interface Desk {
  client: TestClient;
  orgId: string;
  slug: string;
  agent: string;
  approver: string;
}

export async function desk(s: BooksServer): Promise<Desk> {
  const org = await freshOrg(s.runtime, 'super');
  const client = new TestClient(s.app, org.adminKey);
  return {
    client,
    orgId: org.orgId,
    slug: org.slug,
    agent: (await client.mint({ tier: 'agent' }, 'agent')).apiKey,
    approver: (await client.mint({ tier: 'approver' }, 'approver')).apiKey,
  };
}

/**
 * A signed pay run as books.payrollSign leaves it (POSTED row, payslips, the journal Dr 477, 478 / Cr 825, 826,
 * 804), recorded directly so these tests do not depend on which PAYG schedules are loaded (payroll.test.ts
 * covers drafting and signing). Gross is 10x the super, PAYG 2x.
 */
export async function payRun(
  s: BooksServer,
  d: Desk,
  periodStart: string,
  periodEnd: string,
  payDate: string,
  slips: Slip[],
  outOfCycle = false,
): Promise<string> {
  const runId = newId('pay');
  const sum = (f: (x: { superCents: number }) => number) => slips.reduce((t, x) => t + f(x), 0);
  const [gross, payg, sup] = [sum((x) => x.superCents * 10), sum((x) => x.superCents * 2), sum((x) => x.superCents)];
  await s.runtime.db.tx(async (q) => {
    await q.query(
      `INSERT INTO books_pay_runs (org_id, run_id, period_start, period_end, pay_date, status, staff_count, gross_cents, payg_cents, super_cents, net_cents, created_by, out_of_cycle)
       VALUES ($1, $2, $3, $4, $5, 'DRAFT', $6, $7, $8, $9, $10, 'test', $11)`,
      [d.orgId, runId, periodStart, periodEnd, payDate, slips.length, gross, payg, sup, gross - payg, outOfCycle],
    );
    for (const x of slips) {
      await q.query(
        `INSERT INTO books_payslips (org_id, payslip_id, run_id, employee_id, employee_name, days_employed, pay_basis, rate_cents, hours_per_week,
                claims_tax_free_threshold, gross_cents, payg_cents, super_cents, net_cents)
         VALUES ($1, $2, $3, $4, $5, 14, 'ANNUAL', 7800000, 38, true, $6, $7, $8, $9)`,
        [d.orgId, newId('psl'), runId, x.employee.id, x.employee.name, x.superCents * 10, x.superCents * 2, x.superCents, x.superCents * 8],
      );
    }
    const journalId = await postJournal(q, d.orgId, {
      date: payDate,
      narration: `Pay run ${periodStart}..${periodEnd}`,
      sourceKind: 'pay_run',
      sourceId: runId,
      postedBy: 'test',
      lines: [
        { account: '477', amountCents: gross, description: 'Gross wages' },
        { account: '478', amountCents: sup, description: 'Super guarantee' },
        { account: '825', amountCents: -payg, description: 'PAYG withheld' },
        { account: '826', amountCents: -sup, description: 'Super guarantee payable' },
        { account: '804', amountCents: -(gross - payg), description: 'Net wages payable' },
      ],
    });
    await q.query(`UPDATE books_pay_runs SET status = 'POSTED', journal_id = $3, posted_at = now() WHERE org_id = $1 AND run_id = $2`, [
      d.orgId,
      runId,
      journalId,
    ]);
  });
  return runId;
}

/** Super sent to the funds the way it happens: a bank line out, coded to 826. Returns the line. */
export async function paySuper(s: BooksServer, d: Desk, amountCents: number, date: string): Promise<string> {
  const lineId = await feedLine(s, d, -amountCents, { date, description: 'SUPER CLEARING HOUSE' });
  await d.client.ok('books.matchAccept', { lineId, target: { kind: 'account', account: '826' } });
  return lineId;
}

/** The fund's acknowledgement that it received (part of) what a line sent. */
export const ack = (d: Desk, lineId: string, totalCents: number, date: string) =>
  d.client.ok('books.receiptsRegister', {
    supplier: 'AustralianSuper',
    date,
    totalCents,
    fileRef: `acks/${lineId}.pdf`,
    taxInvoice: false,
    link: { kind: 'super', lineId },
  });

export const superAsAt = async (d: Desk, asOf: string): Promise<any[]> =>
  (await d.client.ok('books.taxObligations', { asOf, limit: 200 })).obligations.filter((o: any) => o.kind === 'SUPER');
export const brief = (items: any[]) => items.map((o) => [o.key.replace(/pay_\w+/, 'RUN'), o.periodEnd, o.dueDate, o.amountCents, o.status, o.overdue]);
