import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { booksServer, expectHold, idem, mutate, type BooksServer } from './setup.js';
import { refused } from '../../helpers/calls.js';
import { CLAIMS_LODGED, Q3, Q3_NET, TODAY, taxKit } from './tax-kit.js';

/** books.taxSignLodge: the signature act, the clearing journal and the period lock. */

let s: BooksServer;
let k: ReturnType<typeof taxKit>;
beforeAll(async () => {
  s = await booksServer(TODAY);
  k = taxKit(s);
});
afterAll(() => s.close());

describe('books.taxSignLodge', () => {
  it('holds without proof (nothing changes, never reported lodged); lodges with a human signature; locks the period', async () => {
    const o = await k.booksOrg();
    await k.quarterActivity(o);
    const l = await k.prepared(o);
    // The period must have ended.
    s.clock.set('2026-09-30');
    await refused(o.client, 'books.taxSignLodge', { id: l.id }, 'CONFLICT', { message: /has not ended/ });
    s.clock.set('2026-10-05');

    const journals = await k.journalCount(o);
    const hold = await expectHold(o.client, 'books.taxSignLodge', { id: l.id }, 'books.tax_sign_lodge', { key: o.agent.apiKey, idem: idem() });
    expect(hold.subjectId).toBe(l.id);
    const summary = hold.approval.subject.summary;
    expect(summary).toBe(
      `BAS 1 Jul–30 Sep 2026 (${l.id}), awaiting signature to lodge: net $890.00 payable to the ATO ` +
        '(1A $140.00, 1B $250.00, W2 $1,000.00; G1 $2,040.00, G2 $0.00, G3 $300.00, G10 $2,420.00, G11 $425.00, W1 $5,000.00)',
    );
    for (const text of [hold.message, summary]) expect(text).not.toMatch(/lodged/i);
    expect(hold.message).toMatch(/^Held, not executed/);
    // Nothing changed: still PREPARED, no journal, no lock; the read says so.
    expect(await k.row(o, l.id)).toMatchObject({ status: 'PREPARED', lodged_at: null, journal_id: null });
    expect(await k.journalCount(o)).toBe(journals);
    expect(await k.lockDate(o)).toBeNull();
    const read = (await o.client.ok('books.taxObligations', {})).obligations.find((x: any) => x.kind === 'BAS' && x.periodStart === '2026-07-01');
    expect(read).toMatchObject({ status: 'PREPARED', lodgementId: l.id, amountCents: Q3_NET, estimated: false });
    expect(read.note).toMatch(/awaiting a human signature/);
    expect(JSON.stringify(read)).not.toMatch(CLAIMS_LODGED);

    const approvalId = await k.approve(o, hold);
    const { result, event } = await mutate(o.client, 'books.taxSignLodge', { id: l.id, approvalId }, 'books.tax.lodge', { key: o.agent.apiKey, idem: idem() });
    expect(result).toMatchObject({ changed: true, approvalId, lodgement: { status: 'LODGED', approvalId, journalId: result.journalId } });
    expect(result.lodgement.lodgedAt).toBeTruthy();
    expect(result.message).toMatch(
      /^Lodged BAS 1 Jul–30 Sep 2026 .* in the books under approval apr_\w+ \(not submitted to the ATO: this server has no ATO channel, so lodge these figures there\).* locked through 2026-09-30/,
    );
    expect(event.payload).toMatchObject({ lodgementId: l.id, journalId: result.journalId, approvalId, netCents: Q3_NET, lockDate: '2026-09-30' });
    // Dr 820 by 1A - 1B = 14000 - 25000 (a credit), Dr 825 by W2 100000 / Cr 830 by the net 89000.
    expect(await k.lines(o, result.journalId)).toEqual([
      { account_code: '820', amount_cents: -11000 },
      { account_code: '825', amount_cents: 100000 },
      { account_code: '830', amount_cents: -89000 },
    ]);
    const [j] = await s.runtime.db.query<any>('SELECT date, source_kind, source_id FROM books_journals WHERE org_id = $1 AND journal_id = $2', [
      o.orgId,
      result.journalId,
    ]);
    expect(j).toEqual({ date: '2026-09-30', source_kind: 'tax', source_id: l.id });
    // 820 and 825 now hold only what falls after the period (the October sale's GST).
    const balance = async (code: string) =>
      Number(
        (
          await s.runtime.db.query<any>(
            'SELECT coalesce(sum(amount_cents), 0)::bigint AS v FROM books_journal_lines l JOIN books_journals j USING (org_id, journal_id) WHERE l.org_id = $1 AND account_code = $2 AND j.date <= $3',
            [o.orgId, code, '2026-09-30'],
          )
        )[0].v,
      );
    expect([await balance('820'), await balance('825')]).toEqual([0, 0]);
    expect(await k.lockDate(o)).toBe('2026-09-30');
    await k.invariants(o);

    // Replays post nothing: without proof, and with the used proof.
    const journalsAfter = await k.journalCount(o);
    const replay = await mutate(o.client, 'books.taxSignLodge', { id: l.id }, 'books.tax.lodge');
    expect(replay.result).toMatchObject({ changed: false, journalId: result.journalId, lodgement: { status: 'LODGED' } });
    expect(replay.event.payload.noop).toBe(true);
    await refused(o.client, 'books.taxSignLodge', { id: l.id, approvalId }, 'GOVERNANCE_NOT_READY', { message: /already used/, idem: idem() });
    expect(await k.journalCount(o)).toBe(journalsAfter);

    // The proof cannot lodge another lodgement.
    await k.sale(o, '2026-10-20', 11000);
    const next = await k.prepared(o, { periodStart: '2026-10-01', periodEnd: '2026-10-31' });
    s.clock.set('2026-11-02');
    await refused(o.client, 'books.taxSignLodge', { id: next.id, approvalId }, 'CONFLICT', { message: /approval .* was filed for/, idem: idem() });
    expect((await k.row(o, next.id)).status).toBe('PREPARED');

    // The lock: nothing more posts into the lodged period, and it cannot be prepared again.
    s.clock.set('2026-09-15');
    const inv = (await o.client.ok('books.invoiceDraft', { payeeName: 'Late Co', description: 'x', totalCents: 1100, dueDays: 7 })).invoice;
    await refused(o.client, 'books.invoiceSend', { id: inv.id }, 'CONFLICT', { message: /locked through 2026-09-30/ });
    s.clock.set(TODAY);
    await expect(
      k.post(o, '2026-09-30', 'manual', [
        { account: '429', amountCents: 100 },
        { account: '090', amountCents: -100 },
      ]),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    await refused(o.client, 'books.taxPrepare', Q3, 'CONFLICT', { message: /locked through 2026-09-30/ });
    await refused(o.client, 'books.taxHold', { id: l.id, reason: 'x' }, 'CONFLICT', { message: /LODGED/ });
    await refused(o.client, 'books.taxReturn', { id: l.id, reason: 'x' }, 'CONFLICT', { message: /LODGED/ });
    await k.invariants(o);
  });

  it('refuses when the books moved after the human approved, and an approval for other figures (the payload binds them)', async () => {
    const o = await k.booksOrg();
    await k.quarterActivity(o);
    const l = await k.prepared(o);
    s.clock.set('2026-10-05');
    const hold = await expectHold(o.client, 'books.taxSignLodge', { id: l.id }, 'books.tax_sign_lodge', { key: o.agent.apiKey, idem: idem() });
    const approvalId = await k.approve(o, hold);
    await k.purchase(o, '2026-09-29', '429', 11000, 'GST'); // the books move: 1B + 1000
    await refused(o.client, 'books.taxSignLodge', { id: l.id, approvalId }, 'CONFLICT', {
      message: /no longer matches the books \(G11 \$425\.00 -> \$535\.00, 1B \$250\.00 -> \$260\.00\): the books moved .*re-prepare/,
      idem: idem(),
    });
    expect(await k.row(o, l.id)).toMatchObject({ status: 'PREPARED', lodged_at: null });
    // Re-prepared, the snapshot matches the books again, but the human approved the old figures.
    await o.client.ok('books.taxPrepare', Q3);
    await refused(o.client, 'books.taxSignLodge', { id: l.id, approvalId }, 'CONFLICT', {
      message: /was filed for payloadHash .*the params differ from the held act/,
      idem: idem(),
    });
    // A fresh hold shows the new figures; its approval lodges them.
    const fresh = await expectHold(o.client, 'books.taxSignLodge', { id: l.id }, 'books.tax_sign_lodge', { key: o.agent.apiKey, idem: idem() });
    expect(fresh.approval.subject.summary).toContain('net $880.00 payable');
    const second = await k.approve(o, fresh);
    const { result } = await mutate(o.client, 'books.taxSignLodge', { id: l.id, approvalId: second }, 'books.tax.lodge', { idem: idem() });
    expect(result.lodgement).toMatchObject({ status: 'LODGED', netCents: Q3_NET - 1000, approvalId: second });
    expect(await k.lines(o, result.journalId)).toEqual([
      { account_code: '820', amount_cents: -12000 },
      { account_code: '825', amount_cents: 100000 },
      { account_code: '830', amount_cents: -88000 },
    ]);
    s.clock.set(TODAY);
    await k.invariants(o);
  });

  it('a signature covers one preparation: not one from before the lodgement was returned and re-prepared', async () => {
    const o = await k.booksOrg();
    await k.quarterActivity(o);
    const l = await k.prepared(o);
    s.clock.set('2026-10-05');
    const hold = await expectHold(o.client, 'books.taxSignLodge', { id: l.id }, 'books.tax_sign_lodge', { key: o.agent.apiKey });
    const approvalId = await k.approve(o, hold);
    await o.client.ok('books.taxReturn', { id: l.id, reason: 'Check the wages' });
    await o.client.ok('books.taxPrepare', Q3); // the same figures, a new preparation
    await refused(o.client, 'books.taxSignLodge', { id: l.id, approvalId }, 'CONFLICT', {
      message: /was filed for payloadHash .*the params differ from the held act/,
      idem: idem(),
    });
    expect((await k.row(o, l.id)).status).toBe('PREPARED');
    const fresh = await expectHold(o.client, 'books.taxSignLodge', { id: l.id }, 'books.tax_sign_lodge', { key: o.agent.apiKey });
    const { result } = await mutate(o.client, 'books.taxSignLodge', { id: l.id, approvalId: await k.approve(o, fresh) }, 'books.tax.lodge', { idem: idem() });
    expect(result.lodgement).toMatchObject({ status: 'LODGED', netCents: Q3_NET });
    s.clock.set(TODAY);
    await k.invariants(o);
  });

  it('a refund debits 830; a nil BAS posts no journal but still locks', async () => {
    const o = await k.booksOrg();
    await k.purchase(o, '2026-08-01', '720', 242000, 'GST');
    const refund = await k.prepared(o);
    expect(refund).toMatchObject({ netCents: -22000, statusNote: expect.stringContaining('net refund of $220.00 from the ATO') });
    s.clock.set('2026-10-05');
    const hold = await expectHold(o.client, 'books.taxSignLodge', { id: refund.id }, 'books.tax_sign_lodge');
    const { result } = await mutate(o.client, 'books.taxSignLodge', { id: refund.id, approvalId: await k.approve(o, hold) }, 'books.tax.lodge', {
      idem: idem(),
    });
    expect(await k.lines(o, result.journalId)).toEqual([
      { account_code: '820', amount_cents: -22000 },
      { account_code: '830', amount_cents: 22000 },
    ]);

    const nil = await k.prepared(o, { periodStart: '2026-10-01', periodEnd: '2026-10-31' });
    expect(nil.netCents).toBe(0);
    s.clock.set('2026-11-02');
    const nilHold = await expectHold(o.client, 'books.taxSignLodge', { id: nil.id }, 'books.tax_sign_lodge');
    expect(nilHold.approval.subject.summary).toContain('nil net amount');
    const journals = await k.journalCount(o);
    const lodged = await mutate(o.client, 'books.taxSignLodge', { id: nil.id, approvalId: await k.approve(o, nilHold) }, 'books.tax.lodge', { idem: idem() });
    expect(lodged.result).toMatchObject({ journalId: null, lodgement: { status: 'LODGED', journalId: null } });
    expect(await k.journalCount(o)).toBe(journals);
    expect(await k.lockDate(o)).toBe('2026-10-31');
    await k.invariants(o);
  });

  it('bad input and wrong proofs', async () => {
    const o = await k.booksOrg();
    const l = await k.prepared(o);
    s.clock.set('2026-10-05');
    await refused(o.client, 'books.taxSignLodge', { id: 'bas_' }, 'BAD_REQUEST', { message: /^id: / });
    await refused(o.client, 'books.taxSignLodge', { id: l.id, approvalId: 'apr_nothing' }, 'CONFLICT', { message: /not a proof/, idem: idem() });
    await refused(o.client, 'books.taxSignLodge', { id: l.id, extra: true }, 'BAD_REQUEST', { message: 'extra: unknown field' });
    // A rejected approval does not lodge.
    const hold = await expectHold(o.client, 'books.taxSignLodge', { id: l.id }, 'books.tax_sign_lodge', { key: o.agent.apiKey });
    const filed = await o.client.ok(
      'approval.request',
      { actionClass: hold.approval.actionClass, payloadHash: hold.approval.payloadHash, subject: hold.approval.subject },
      { key: o.agent.apiKey },
    );
    await o.client.ok('approval.resolve', { approvalId: filed.approvalId, decision: 'reject' }, { key: o.approver.apiKey });
    await refused(o.client, 'books.taxSignLodge', { id: l.id, approvalId: filed.approvalId }, 'GOVERNANCE_NOT_READY', { message: /rejected/, idem: idem() });
    expect((await k.row(o, l.id)).status).toBe('PREPARED');
    s.clock.set(TODAY);
  });
});
