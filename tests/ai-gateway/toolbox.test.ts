import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolError } from '../../ai-gateway/types.js';
import { booksServer, type BooksServer } from '../domain/books/setup.js';
import { otherOrg } from '../helpers/calls.js';
import { toolboxFor } from './kit.js';

let s: BooksServer;
let invoiceId: string;

beforeAll(async () => {
  s = await booksServer('2026-11-02');
  const draft = await s.client.ok('books.invoiceDraft', { payeeName: 'Harbour Cafe', description: 'Bookkeeping', totalCents: 110000, dueDays: 14 });
  invoiceId = draft.invoice.id;
  await s.client.ok('books.invoiceSend', { id: invoiceId }, { idem: 'send-1' });
});
afterAll(() => s.close());

describe('toolbox', () => {
  it('lists the books reads and ledger.events', async () => {
    const tb = await toolboxFor(s.runtime, s.org.adminKey);
    expect(tb.tools.map((t) => t.name)).toEqual([
      'books.invoices',
      'books.bills',
      'books.accounts',
      'books.reports',
      'books.journals',
      'books.feedLines',
      'books.assets',
      'books.taxObligations',
      'ledger.events',
    ]);
    for (const t of tb.tools) expect(t.description.length, t.name).toBeGreaterThan(20);
  });

  it('indexes records, accounts, report lines and events; nothing is citable before a read returns it', async () => {
    const tb = await toolboxFor(s.runtime, s.org.adminKey);
    expect(tb.records.has({ kind: 'record', id: invoiceId })).toBe(false);
    const page = (await tb.call('books.invoices', { status: 'AUTHORISED' })) as any;
    expect(page.invoices.map((i: any) => i.id)).toEqual([invoiceId]);
    expect(tb.records.has({ kind: 'record', id: invoiceId })).toBe(true);
    expect(tb.records.has({ kind: 'record', id: page.invoices[0].contact.id })).toBe(true);
    expect(tb.records.has({ kind: 'account', code: '610' })).toBe(false);

    const accounts = (await tb.call('books.accounts', {})) as any;
    const receivable = accounts.accounts.find((a: any) => a.code === '610');
    expect(receivable.balanceCents).toBe(110000);
    expect(tb.records.occurrences({ kind: 'account', code: '610' })).toEqual([receivable]);

    await tb.call('books.reports', { report: 'profitAndLoss', from: '2026-11-01', to: '2026-11-30' });
    // Account 200 now has two occurrences: its chart row (a credit balance) and its profit and loss line.
    expect(tb.records.occurrences({ kind: 'account', code: '200' }).map((o: any) => o.balanceCents ?? o.amountCents)).toEqual([-100000, 100000]);

    // Journal lines carry `account` too, but only chart rows and report lines stand for an account.
    const tb2 = await toolboxFor(s.runtime, s.org.adminKey);
    await tb2.call('books.journals', { sourceId: invoiceId });
    expect(tb2.records.has({ kind: 'account', code: '200' })).toBe(false);

    const events = (await tb.call('ledger.events', { limit: 5, family: 'books' })) as any;
    expect(events.events[0].kind).toBe('books.invoice.send');
    expect(events.events[0].entityId).toBe(invoiceId);
    expect(tb.records.has({ kind: 'event', seq: events.events[0].seq })).toBe(true);
    expect(tb.calls.map((c) => c.name)).toEqual(['books.invoices', 'books.accounts', 'books.reports', 'ledger.events']);
    expect(tb.records.reads).toBe(4);
  });

  it('reports bad params, unknown tools and missing scopes as ToolErrors naming the field or scope', async () => {
    const tb = await toolboxFor(s.runtime, s.org.adminKey);
    await expect(tb.call('books.invoices', { limit: 1000 })).rejects.toThrow(new ToolError('BAD_REQUEST: limit: must be at most 200'));
    await expect(tb.call('books.invoices', { sql: 'select 1' })).rejects.toThrow(/BAD_REQUEST: sql: unknown field/);
    await expect(tb.call('ledger.events', { limit: 0 })).rejects.toThrow(/BAD_REQUEST: limit: must be >= 1/);
    await expect(tb.call('books.invoiceSend', { id: invoiceId })).rejects.toThrow(/unknown tool "books.invoiceSend"/);
    expect(tb.calls.every((c) => !c.ok)).toBe(true);
    expect(tb.records.size).toBe(0);

    const booksOnly = await s.client.mint({ scopes: ['books.read'] }, 'books reader');
    const narrow = await toolboxFor(s.runtime, booksOnly.apiKey);
    await expect(narrow.call('ledger.events', {})).rejects.toThrow(/FORBIDDEN_SCOPE: missing scope org.read for ledger.events/);
    const noBooks = await s.client.mint({ scopes: ['org.read'] }, 'org reader');
    const other = await toolboxFor(s.runtime, noBooks.apiKey);
    await expect(other.call('books.invoices', {})).rejects.toThrow(/FORBIDDEN_SCOPE: missing scope books.read for books.invoices/);
  });

  it('runs as the caller: another org sees only its own books and ledger', async () => {
    const elsewhere = await otherOrg(s);
    const tb = await toolboxFor(s.runtime, elsewhere.defaultKey);
    expect(((await tb.call('books.invoices', {})) as any).invoices).toEqual([]);
    const events = ((await tb.call('ledger.events', { entityId: invoiceId })) as any).events;
    expect(events).toEqual([]);
    expect(tb.records.has({ kind: 'record', id: invoiceId })).toBe(false);
  });
});
