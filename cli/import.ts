import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { ApiError } from '../protocol/errors.js';
import type { Db } from '../db/types.js';
import { importStatement, type ImportResult, type StatementFormat } from '../domain/books/reconciliation/index.js';
import { findOrgBySlug } from '../domain/people/org/service.js';

/** `import <file> [--org <slug>] [--format csv|ofx]`: a bank statement into an org's feed lines, as the operator (actor ""). */

const BY_EXTENSION: Record<string, StatementFormat> = { '.csv': 'csv', '.ofx': 'ofx', '.qfx': 'ofx' };

export interface StatementFile {
  format: StatementFormat;
  content: string;
  fileName: string;
}

/** The file and its format (given, else from the extension), read before any database is opened. */
export async function readStatementFile(file: string, format: string | undefined): Promise<StatementFile> {
  if (format !== undefined && format !== 'csv' && format !== 'ofx') throw new Error(`--format: must be csv or ofx, got "${format}"`);
  const resolved = format ?? BY_EXTENSION[extname(file).toLowerCase()];
  if (!resolved) throw new Error(`cannot tell the format of ${basename(file)} from its extension; pass --format csv or --format ofx`);
  try {
    return { format: resolved, content: await readFile(file, 'utf8'), fileName: basename(file) };
  } catch (err) {
    throw new Error(`cannot read ${file}: ${(err as Error).message}`);
  }
}

/** Import into the org with this slug and say what happened in one line. */
export async function importCommand(db: Db, slug: string, f: StatementFile): Promise<string> {
  const org = await findOrgBySlug(db, slug);
  if (!org) throw new Error(`org ${slug} not found (pass --org <slug>)`);
  let r: ImportResult;
  try {
    r = await importStatement(db, org.orgId, f, '');
  } catch (err) {
    // A parse error names the line and field; say which file instead of the API's `content`.
    if (err instanceof ApiError) throw new Error(`${f.fileName}: ${err.message.replace(/^content: /, '')}`);
    throw err;
  }
  return `${org.slug}: ${r.message}; import ${r.importId}: ${r.lines} lines, ${r.imported} new, ${r.duplicates} duplicates`;
}
