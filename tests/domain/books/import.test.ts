import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../../db/index.js';
import { parseCsv } from '../../../domain/books/reconciliation/csv.js';
import { parseOfx } from '../../../domain/books/reconciliation/ofx.js';
import { one } from '../../../db/types.js';
import { booksServer, type BooksServer } from './setup.js';
import { eventsAfter, head } from '../../helpers/calls.js';
import { csvOf, freshDesk, postImport, type Desk } from './reconciliation-kit.js';
import { pgliteOnly } from '../../helpers/harness.js';
import { cliOnTempDataDir } from '../../helpers/cli.js';

/** The bank statement import: CSV and OFX (1.x SGML, 2.x XML), dedupe, errors naming the line, the admin path, the CLI. */

let s: BooksServer;
beforeAll(async () => {
  s = await booksServer('2026-11-02');
});
afterAll(() => s.close());

const stored = (orgId: string) =>
  s.runtime.db.query<{
    bank_txn_id: string;
    date: string;
    amount_cents: number;
    description: string;
    payee: string | null;
    reference: string | null;
    status: string;
  }>('SELECT bank_txn_id, date, amount_cents, description, payee, reference, status FROM books_feed_lines WHERE org_id = $1 ORDER BY n', [orgId]);

/** Import through the admin path; the one books.feed.import event it appends is checked against the result. */
async function imported(d: Desk, body: Record<string, unknown>) {
  const before = await head(d.client);
  const res = await postImport(d.client, body);
  expect(res.status, res.raw).toBe(200);
  expect(res.body.ok).toBe(true);
  const result = res.body.result;
  const events = await eventsAfter(d.client, before);
  expect(events.map((e) => e.kind)).toEqual(['books.feed.import']);
  expect(events[0]).toMatchObject({ family: 'books', entity_id: result.importId });
  expect(events[0].payload).toEqual({
    importId: result.importId,
    format: body.format,
    lines: result.lines,
    imported: result.imported,
    duplicates: result.duplicates,
  });
  expect(result.ledgerId).toBe(events[0].row_hash.slice(0, 8));
  expect(result.message).toContain(`ledger #${result.ledgerId}`);
  return result;
}

async function rejected(d: Desk, body: Record<string, unknown>, status: number, code: string, message: RegExp) {
  const before = await head(d.client);
  const res = await postImport(d.client, body);
  expect(res.status, res.raw).toBe(status);
  expect(res.body).toEqual({ ok: false, error: { code, message: expect.stringMatching(message) } });
  expect(await head(d.client)).toBe(before);
}

const SGML = `OFXHEADER:100
DATA:OFXSGML
VERSION:102
SECURITY:NONE
ENCODING:USASCII
CHARSET:1252

<OFX>
<SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS><DTSERVER>20261105120000<LANGUAGE>ENG</SONRS></SIGNONMSGSRSV1>
<BANKMSGSRSV1><STMTTRNRS><TRNUID>1<STATUS><CODE>0<SEVERITY>INFO</STATUS>
<STMTRS><CURDEF>AUD<BANKACCTFROM><BANKID>062000<ACCTID>12345678<ACCTTYPE>CHECKING</BANKACCTFROM>
<BANKTRANLIST><DTSTART>20261101<DTEND>20261105
<STMTTRN>
<TRNTYPE>CREDIT
<DTPOSTED>20261103120000[+10:AEST]
<TRNAMT>1100.00
<FITID>202611030001
<NAME>HARBOUR CAFE &amp; CO
<MEMO>INV-0001
</STMTTRN>
<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20261104<TRNAMT>-55.5<FITID>202611040002<NAME>OFFICEWORKS<REFNUM>8812</STMTTRN>
</BANKTRANLIST>
<LEDGERBAL><BALAMT>1044.50<DTASOF>20261105</LEDGERBAL>
</STMTRS></STMTTRNRS></BANKMSGSRSV1>
</OFX>
`;

const XML = `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<?OFX OFXHEADER="200" VERSION="220" SECURITY="NONE" OLDFILEUID="NONE" NEWFILEUID="NONE"?>
<OFX>
  <BANKMSGSRSV1><STMTTRNRS><TRNUID>1</TRNUID><STMTRS><CURDEF>AUD</CURDEF>
    <BANKTRANLIST>
      <DTSTART>20261101</DTSTART><DTEND>20261106</DTEND>
      <STMTTRN>
        <TRNTYPE>DEBIT</TRNTYPE><DTPOSTED>20261104000000.000</DTPOSTED><TRNAMT>-55.50</TRNAMT>
        <FITID>202611040002</FITID><NAME>OFFICEWORKS</NAME>
      </STMTTRN>
      <STMTTRN>
        <TRNTYPE>FEE</TRNTYPE><DTPOSTED>20261106</DTPOSTED><TRNAMT>-12,34</TRNAMT>
        <FITID>202611060003</FITID><PAYEE><NAME>Westpac</NAME><ADDR1>275 Kent St</ADDR1></PAYEE><MEMO>Account fee &lt;Nov&gt;</MEMO>
      </STMTTRN>
    </BANKTRANLIST>
  </STMTRS></STMTTRNRS></BANKMSGSRSV1>
</OFX>
`;

describe('CSV statements', () => {
  it('imports by header name, dedupes a re-import on the bank id, and derives ids for rows without one', async () => {
    const d = await freshDesk(s, 'imp');
    const content = csvOf([
      { date: '03/11/2026', amount: '1,100.00', description: 'DEPOSIT HARBOUR CAFE', payee: 'Harbour Cafe', reference: 'INV-0001', id: 'TX-1' },
      { date: '2026-11-04', amount: '-$55.50', description: 'OFFICEWORKS, SYDNEY' },
      { date: '2026-11-04', amount: '-$55.50', description: 'OFFICEWORKS, SYDNEY' },
    ]);
    const first = await imported(d, { format: 'csv', content, fileName: 'nov.csv' });
    expect(first).toMatchObject({ lines: 3, imported: 3, duplicates: 0 });
    expect(first.importId).toMatch(/^imp_/);
    expect(first.message).toMatch(/^Imported 3 of 3 bank lines from nov\.csv/);
    const rows = await stored(d.orgId);
    expect(rows[0]).toEqual({
      bank_txn_id: 'TX-1',
      date: '2026-11-03',
      amount_cents: 110000,
      description: 'DEPOSIT HARBOUR CAFE',
      payee: 'Harbour Cafe',
      reference: 'INV-0001',
      status: 'UNMATCHED',
    });
    // Two identical coffees on one day stay two lines: the derived id counts them within the file.
    expect(rows[1]).toMatchObject({ amount_cents: -5550, payee: null, reference: null, bank_txn_id: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
    expect(rows[2]?.bank_txn_id).not.toBe(rows[1]?.bank_txn_id);

    const again = await imported(d, { format: 'csv', content });
    expect(again).toMatchObject({ lines: 3, imported: 0, duplicates: 3 });
    expect(again.message).toMatch(/3 already imported, skipped/);
    expect(await stored(d.orgId)).toHaveLength(3);
    const lines = await d.client.ok('books.feedLines', {});
    expect(lines.feedLines.map((l: any) => l.importId)).toEqual([first.importId, first.importId, first.importId]);
  });

  it('reads debit and credit columns, other header spellings, and a header-only file', async () => {
    const d = await freshDesk(s, 'imp');
    const content =
      'Transaction Date,Narrative,Debit,Credit,Balance,Transaction ID\n05/11/2026,EFTPOS OFFICEWORKS,12.30,,987.70,A1\n06/11/2026,TRANSFER FROM ACME,,500,1487.70,A2\n';
    expect(await imported(d, { format: 'csv', content })).toMatchObject({ lines: 2, imported: 2 });
    expect((await stored(d.orgId)).map((r) => [r.date, r.amount_cents, r.description])).toEqual([
      ['2026-11-05', -1230, 'EFTPOS OFFICEWORKS'],
      ['2026-11-06', 50000, 'TRANSFER FROM ACME'],
    ]);
    expect(await imported(d, { format: 'csv', content: 'Date,Amount,Description\n' })).toMatchObject({ lines: 0, imported: 0, duplicates: 0 });
  });

  it('a bad row names its line and field, and nothing is imported', async () => {
    const d = await freshDesk(s, 'imp');
    const ok = '2026-11-03,10.00,Fine';
    await rejected(
      d,
      { format: 'csv', content: `Date,Amount,Description\n${ok}\n2026-11-04,12.3.4,Bad\n` },
      400,
      'BAD_REQUEST',
      /^content: line 3: amount: "12\.3\.4" is not an amount in dollars and cents$/,
    );
    await rejected(
      d,
      { format: 'csv', content: `Date,Amount,Description\n${ok}\n31/02/2026,1.00,Bad\n` },
      400,
      'BAD_REQUEST',
      /^content: line 3: date: "31\/02\/2026" is not a date/,
    );
    await rejected(
      d,
      { format: 'csv', content: `Date,Amount,Description\n${ok}\n2026-11-04,0.00,Zero\n` },
      400,
      'BAD_REQUEST',
      /^content: line 3: amount: "0\.00" is zero/,
    );
    await rejected(
      d,
      { format: 'csv', content: `Date,Amount,Description\n${ok}\n2026-11-04,1.00,\n` },
      400,
      'BAD_REQUEST',
      /^content: line 3: description: empty/,
    );
    await rejected(
      d,
      { format: 'csv', content: `Date,Debit,Credit,Description\n2026-11-04,1.00,2.00,Both\n` },
      400,
      'BAD_REQUEST',
      /^content: line 2: debit: the row has both/,
    );
    await rejected(
      d,
      { format: 'csv', content: `Date,Amount,Description\n${ok}\n2026-11-04,1.00,x,extra\n` },
      400,
      'BAD_REQUEST',
      /^content: not readable as CSV: .*line 3/,
    );
    await rejected(
      d,
      { format: 'csv', content: 'Date,Amount,Memo Line\n2026-11-04,1.00,x\n' },
      400,
      'BAD_REQUEST',
      /^content: line 1: header: missing column description \(found: "Date", "Amount", "Memo Line"\)/,
    );
    await rejected(d, { format: 'csv', content: 'Date,Amount,Description,Details\n' }, 400, 'BAD_REQUEST', /both mean description/);
    expect(await stored(d.orgId)).toEqual([]);
  });
});

describe('OFX statements', () => {
  it('imports OFX 1.x SGML and 2.x XML; the same FITID in either file is one line', async () => {
    const d = await freshDesk(s, 'imp');
    expect(await imported(d, { format: 'ofx', content: SGML, fileName: 'nov.ofx' })).toMatchObject({ lines: 2, imported: 2, duplicates: 0 });
    expect(await stored(d.orgId)).toEqual([
      {
        bank_txn_id: '202611030001',
        date: '2026-11-03',
        amount_cents: 110000,
        description: 'HARBOUR CAFE & CO INV-0001',
        payee: 'HARBOUR CAFE & CO',
        reference: null,
        status: 'UNMATCHED',
      },
      {
        bank_txn_id: '202611040002',
        date: '2026-11-04',
        amount_cents: -5550,
        description: 'OFFICEWORKS',
        payee: 'OFFICEWORKS',
        reference: '8812',
        status: 'UNMATCHED',
      },
    ]);
    expect(await imported(d, { format: 'ofx', content: XML })).toMatchObject({ lines: 2, imported: 1, duplicates: 1 });
    expect((await stored(d.orgId))[2]).toEqual({
      bank_txn_id: '202611060003',
      date: '2026-11-06',
      amount_cents: -1234,
      description: 'Westpac Account fee <Nov>',
      payee: 'Westpac',
      reference: null,
      status: 'UNMATCHED',
    });
    expect(await imported(d, { format: 'ofx', content: SGML })).toMatchObject({ imported: 0, duplicates: 2 });
  });

  it('errors name the line, the transaction and the field', async () => {
    const d = await freshDesk(s, 'imp');
    await rejected(
      d,
      { format: 'ofx', content: SGML.replace('<TRNAMT>-55.5', '<TRNAMT>abc') },
      400,
      'BAD_REQUEST',
      /^content: line 21 \(transaction 2\): TRNAMT: "abc" is not an amount$/,
    );
    await rejected(
      d,
      { format: 'ofx', content: SGML.replace('20261103120000[+10:AEST]', '20261332') },
      400,
      'BAD_REQUEST',
      /^content: line 13 \(transaction 1\): DTPOSTED: "20261332" is not an OFX date/,
    );
    await rejected(
      d,
      { format: 'ofx', content: XML.replace('<TRNAMT>-55.50</TRNAMT>', '') },
      400,
      'BAD_REQUEST',
      /^content: line 7 \(transaction 1\): TRNAMT: missing$/,
    );
    await rejected(
      d,
      { format: 'ofx', content: SGML.replace('</STMTTRN>\n<STMTTRN>', '\n<STMTTRN>') },
      400,
      'BAD_REQUEST',
      /^content: line 13: STMTTRN: not closed/,
    );
    await rejected(d, { format: 'ofx', content: 'Date,Amount\n' }, 400, 'BAD_REQUEST', /^content: not an OFX file/);
    expect(await stored(d.orgId)).toEqual([]);
  });

  it('the parsers agree on amounts and dates', () => {
    expect(parseOfx(SGML).map((l) => [l.date, l.amountCents])).toEqual([
      ['2026-11-03', 110000],
      ['2026-11-04', -5550],
    ]);
    expect(parseCsv('date,amount,description\n2026-11-01,(12.00),a\n1/2/2026,+3,b\n2026-11-01,-0.5,c\n').map((l) => [l.date, l.amountCents])).toEqual([
      ['2026-11-01', -1200],
      ['2026-02-01', 300],
      ['2026-11-01', -50],
    ]);
  });
});

describe('POST /api/v1/admin/books.importStatement', () => {
  it('needs an admin key: agent 403, none or a bad one 401; bad bodies 400', async () => {
    const d = await freshDesk(s, 'imp');
    const body = { format: 'csv', content: csvOf([{ date: '2026-11-03', amount: '1.00', description: 'x' }]) };
    const agent = await postImport(d.client, body, d.agent);
    expect(agent.status).toBe(403);
    expect(agent.body).toEqual({ ok: false, error: { code: 'FORBIDDEN_SCOPE', message: 'missing scope admin for admin/books.importStatement' } });
    const none = await postImport(d.client, body, null);
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ ok: false, error: { code: 'UNAUTHORIZED' } });
    expect((await postImport(d.client, body, 'wops_not_a_key')).status).toBe(401);
    await rejected(d, { ...body, format: 'qif' }, 400, 'BAD_REQUEST', /^format: must be one of "csv", "ofx"$/);
    await rejected(d, { format: 'csv' }, 400, 'BAD_REQUEST', /^content: required$/);
    await rejected(d, { ...body, extra: 1 }, 400, 'BAD_REQUEST', /^extra: unknown field$/);
    expect(await stored(d.orgId)).toEqual([]);
  });
});

pgliteOnly('tests/domain/books/import (the CLI)')('npm run cli -- import', () => {
  // Each run boots PGlite on the data dir: slow on a busy machine, hence the long timeouts.
  const { dataDir, cli, remove } = cliOnTempDataDir('wops-import-', { logLevel: 'warn', timeout: 120_000 });
  afterAll(remove);

  it('imports a file into an org, skips what it already has, and exits 1 naming the line of a bad file', async () => {
    expect(cli('org', 'create', '--slug', 'cli-books', '--name', 'CLI Books').status).toBe(0);
    const good = join(dataDir, 'nov.csv');
    writeFileSync(
      good,
      csvOf([
        { date: '2026-11-03', amount: '1100.00', description: 'DEPOSIT', id: 'C1' },
        { date: '2026-11-04', amount: '-55.50', description: 'OFFICEWORKS', id: 'C2' },
      ]),
    );
    const first = cli('import', good, '--org', 'cli-books');
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toMatch(
      /^cli-books: Imported 2 of 2 bank lines from nov\.csv \(ledger #[0-9a-f]{8}\); import imp_\w+: 2 lines, 2 new, 0 duplicates$/m,
    );
    const again = cli('import', good, '--org', 'cli-books');
    expect(again.stdout).toMatch(/Imported 0 of 2 .*2 already imported, skipped/);

    const ofx = join(dataDir, 'statement.txt');
    writeFileSync(ofx, SGML);
    expect(cli('import', ofx, '--org', 'cli-books').stderr).toMatch(/cannot tell the format of statement\.txt.*--format csv or --format ofx/);
    expect(cli('import', ofx, '--org', 'cli-books', '--format', 'ofx').stdout).toMatch(/Imported 2 of 2/);

    const bad = join(dataDir, 'bad.csv');
    writeFileSync(bad, 'Date,Amount,Description\n2026-11-03,1.00,ok\n2026-11-04,abc,bad\n');
    const failed = cli('import', bad, '--org', 'cli-books');
    expect(failed.status).toBe(1);
    expect(failed.stderr).toMatch(/^error: bad\.csv: line 3: amount: "abc" is not an amount/);
    const noOrg = cli('import', good);
    expect(noOrg.status).toBe(1);
    expect(noOrg.stderr).toMatch(/org default not found/);
    expect(cli('help').stdout).toMatch(/import <file> \[--org <slug>\] \[--format csv\|ofx\]/);

    const db = await openDb({ dataDir });
    try {
      const events = await db.query<{ kind: string; actor: string }>(
        `SELECT kind, actor FROM events WHERE org_id = (SELECT org_id FROM orgs WHERE slug = 'cli-books') ORDER BY seq`,
      );
      expect(events).toEqual([{ kind: 'org.record.create', actor: '' }, ...Array(3).fill({ kind: 'books.feed.import', actor: '' })]);
      const { c } = one(await db.query<{ c: number }>('SELECT count(*)::int AS c FROM books_feed_lines'));
      expect(c).toBe(4);
    } finally {
      await db.close();
    }
  }, 400_000);
});
