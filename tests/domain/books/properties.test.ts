import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../../db/types.js';
import { TestClient, freshOrg } from '../../helpers/harness.js';
import { booksServer, checkInvariants, eventsAfter, head, type BooksServer } from './setup.js';

/*
 * Property: over random sequences of books calls (valid and invalid, from an agent and a human), after every
 * call the books invariants hold (trial balance 0, controls = subledgers, no unbalanced journal); a successful
 * mutation appended exactly one event; a refused call appended nothing and changed nothing; a held act appended
 * only its books.signature.hold event and changed nothing else.
 */

let s: BooksServer;
beforeAll(async () => {
  s = await booksServer('2026-11-02');
});
afterAll(() => s.close());

/** A digest of every books_ row of the org: any write shows up as a different digest. */
async function booksDigest(q: Queryable, orgId: string): Promise<string> {
  const tables = await q.query<{ t: string }>(
    `SELECT table_name AS t FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name LIKE 'books\\_%' AND column_name = 'org_id' ORDER BY table_name`,
  );
  const parts: string[] = [];
  for (const { t } of tables) {
    const [row] = await q.query<{ d: string | null }>(`SELECT md5(string_agg(x::text, '|' ORDER BY x::text)) AS d FROM ${t} x WHERE org_id = $1`, [orgId]);
    parts.push(`${t}:${row.d ?? ''}`);
  }
  return parts.join(',');
}

/** The world a sequence builds: ids created so far, so actions can refer to them by index. */
interface World {
  client: TestClient;
  orgId: string;
  agentKey: string;
  invoices: string[];
}

type Action = { name: string; run(w: World): Promise<{ method: string; params: unknown; key?: string }> };

const pick = <T>(xs: T[], i: number): T | undefined => (xs.length ? xs[i % xs.length] : undefined);
const MISSING = 'inv_doesnotexist0000';

// Documents are large and payments small, so most payments fit what is due and sequences go deep.
const total = fc.integer({ min: 50_000, max: 900_000 });
const amount = fc.integer({ min: 1, max: 60_000 });
const index = fc.nat(50);

const action = (weight: number, arbitrary: fc.Arbitrary<Action>) => ({ weight, arbitrary });
const call = (method: string, params: unknown, key?: string) => ({ method, params, key });

const actions = [
  action(4, fc.record({ total, due: fc.integer({ min: 0, max: 60 }) }).map(({ total, due }): Action => ({
    name: `invoiceDraft ${total}`,
    run: async () => call('books.invoiceDraft', { payeeName: `Customer ${total % 4}`, description: 'Work', totalCents: total, dueDays: due }),
  }))),
  action(4, index.map((i): Action => ({ name: `invoiceSend #${i}`, run: async (w) => call('books.invoiceSend', { id: pick(w.invoices, i) ?? MISSING }) }))),
  action(3, fc.record({ i: index, a: amount }).map(({ i, a }): Action => ({
    name: `invoiceRecordPayment #${i} ${a}`,
    run: async (w) => call('books.invoiceRecordPayment', { id: pick(w.invoices, i) ?? MISSING, amountCents: a }),
  }))),
  action(2, fc.record({ i: index, a: amount }).map(({ i, a }): Action => ({
    name: `invoiceCreditNote #${i} ${a}`,
    run: async (w) => call('books.invoiceCreditNote', { id: pick(w.invoices, i) ?? MISSING, amountCents: a, reason: 'Adjustment' }),
  }))),
  action(1, index.map((i): Action => ({ name: `invoiceVoid #${i}`, run: async (w) => call('books.invoiceVoid', { id: pick(w.invoices, i) ?? MISSING }) }))),
  // From the agent: steps 2 and 3 hold.
  action(2, fc.record({ i: index, step: fc.integer({ min: 1, max: 3 }) }).map(({ i, step }): Action => ({
    name: `invoiceChaseStep #${i} step ${step}`,
    run: async (w) => call('books.invoiceChaseStep', { id: pick(w.invoices, i) ?? MISSING, step }, w.agentKey),
  }))),
  action(1, fc.record({ i: index, days: fc.integer({ min: 0, max: 28 }) }).map(({ i, days }): Action => ({
    name: `invoicePromise #${i} +${days}d`,
    run: async (w) => call('books.invoicePromise', { id: pick(w.invoices, i) ?? MISSING, date: `2026-11-${String(2 + days).padStart(2, '0')}` }),
  }))),
  action(1, fc.constant<Action>({ name: 'statementRun', run: async () => call('books.statementRun', { asOf: '2026-11-30' }) })),
];

/** Outcomes over the whole property, so a run where nothing succeeds (a vacuous pass) fails. */
const tally = { ok: 0, held: 0, refused: 0, noop: 0 };

async function runSequence(seq: Action[]): Promise<void> {
  const org = await freshOrg(s.runtime, 'prop');
  const client = new TestClient(s.app, org.adminKey);
  const agent = await client.mint({ tier: 'agent' }, 'prop agent');
  const w: World = { client, orgId: org.orgId, agentKey: agent.apiKey, invoices: [] };
  for (const action of seq) {
    const call = await action.run(w);
    const before = await head(client);
    const digestBefore = await booksDigest(s.runtime.db, w.orgId);
    const res = await client.rpc(call.method, call.params, { key: call.key });
    const events = await eventsAfter(client, before);
    const context = `${action.name}: ${res.raw.slice(0, 300)}`;
    expect([200, 400, 404, 409, 423], context).toContain(res.status);
    if (res.body.ok && res.body.result?.status === 'approval_required') {
      expect(events.map((e) => e.kind), context).toEqual(['books.signature.hold']);
      expect(await booksDigest(s.runtime.db, w.orgId), `${context}: a held act changes nothing`).toBe(digestBefore);
      tally.held++;
    } else if (res.body.ok) {
      tally[res.body.result.changed === false ? 'noop' : 'ok']++;
      expect(events, context).toHaveLength(1);
      expect(events[0].kind.startsWith('books.'), context).toBe(true);
      if (res.body.result.changed === false) expect(await booksDigest(s.runtime.db, w.orgId), `${context}: a replay changes nothing`).toBe(digestBefore);
      const created = res.body.result.invoice?.id;
      if (call.method === 'books.invoiceDraft' && created) w.invoices.push(created);
    } else {
      tally.refused++;
      expect(events, `${context}: a refused call appends nothing`).toHaveLength(0);
      expect(await booksDigest(s.runtime.db, w.orgId), `${context}: a refused call changes nothing`).toBe(digestBefore);
    }
    await checkInvariants(s.runtime.db, w.orgId);
  }
}

describe('books invariants over random call sequences', () => {
  it('hold after every call', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(...actions), { minLength: 5, maxLength: 30 }), async (seq) => {
        await runSequence(seq);
      }),
      { numRuns: 20, seed: Number(process.env.FC_SEED ?? Date.now() % 2_147_483_647), endOnFailure: true },
    );
    console.log('[books properties] outcomes', tally);
    expect(tally.ok).toBeGreaterThan(50);
    expect(tally.refused).toBeGreaterThan(0);
  });
});
