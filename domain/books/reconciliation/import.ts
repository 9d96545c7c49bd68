import type { Db } from '../../../db/types.js';
import { appendEvent } from '../../../ledger/append.js';
import { newId } from '../../core/ids.js';
import { parseCsv } from './csv.js';
import { parseOfx } from './ofx.js';
import { assignBankIds, type ParsedLine } from './statement.js';

/*
 * Bank statement import: the only way feed lines arrive. Parse the whole file first (an error names the line and
 * field, and nothing is written), then one transaction inserts the lines, skipping those the org already has
 * (same bank_txn_id, so re-importing a file adds nothing), and appends the one `books.feed.import` event.
 * Called by the CLI (`import`, actor the system "") and the admin HTTP path (actor the admin's principal).
 */

export type StatementFormat = 'csv' | 'ofx';

export interface ImportRequest {
  format: StatementFormat;
  content: string;
  fileName?: string;
}

export interface ImportResult {
  importId: string;
  lines: number;
  imported: number;
  duplicates: number;
  ledgerId: string;
  message: string;
}

export function parseStatement(format: StatementFormat, content: string): ParsedLine[] {
  return format === 'csv' ? parseCsv(content) : parseOfx(content);
}

export async function importStatement(db: Db, orgId: string, req: ImportRequest, actor: string): Promise<ImportResult> {
  const lines = assignBankIds(parseStatement(req.format, req.content));
  const importId = newId('imp');
  return db.tx(async (q) => {
    await q.query(
      `INSERT INTO books_bank_imports (org_id, import_id, format, file_name, lines, imported, duplicates, imported_by)
       VALUES ($1, $2, $3, $4, $5, 0, $5, $6)`,
      [orgId, importId, req.format, req.fileName ?? null, lines.length, actor],
    );
    const inserted =
      lines.length === 0
        ? []
        : await q.query<{ line_id: string }>(
            `INSERT INTO books_feed_lines (org_id, line_id, bank_txn_id, date, amount_cents, description, payee, reference, import_id)
       SELECT $1, t.line_id, t.bank_txn_id, t.date, t.amount_cents, t.description, t.payee, t.reference, $2
         FROM unnest($3::text[], $4::text[], $5::date[], $6::bigint[], $7::text[], $8::text[], $9::text[])
           WITH ORDINALITY AS t(line_id, bank_txn_id, date, amount_cents, description, payee, reference, ord)
        ORDER BY t.ord
       ON CONFLICT (org_id, bank_txn_id) DO NOTHING
       RETURNING line_id`,
            [
              orgId,
              importId,
              lines.map(() => newId('fl')),
              lines.map((l) => l.bankTxnId),
              lines.map((l) => l.date),
              lines.map((l) => l.amountCents),
              lines.map((l) => l.description),
              lines.map((l) => l.payee),
              lines.map((l) => l.reference),
            ],
          );
    const imported = inserted.length;
    const duplicates = lines.length - imported;
    await q.query('UPDATE books_bank_imports SET imported = $3, duplicates = $4 WHERE org_id = $1 AND import_id = $2', [orgId, importId, imported, duplicates]);
    const event = await appendEvent(q, orgId, {
      family: 'books',
      kind: 'books.feed.import',
      entityId: importId,
      actor,
      payload: { importId, format: req.format, lines: lines.length, imported, duplicates },
    });
    const from = req.fileName ? ` from ${req.fileName}` : '';
    const skipped = duplicates > 0 ? `; ${duplicates} already imported, skipped` : '';
    return {
      importId,
      lines: lines.length,
      imported,
      duplicates,
      ledgerId: event.ledgerId,
      message: `Imported ${imported} of ${lines.length} bank line${lines.length === 1 ? '' : 's'}${from}${skipped} (ledger #${event.ledgerId})`,
    };
  });
}
