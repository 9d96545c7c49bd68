import { readdirSync, readFileSync } from 'node:fs';
import { fromProjectRoot } from './project-root.js';
import type { Db, Queryable } from './types.js';

// From the package root, so the compiled code (dist/db) reads the same SQL files as the sources.
const MIGRATIONS_DIR = fromProjectRoot('db', 'migrations') + '/';
/** Any constant: serialises concurrent migrators (several test workers, several gateway processes). */
const MIGRATION_LOCK = 7_311_001;

export function migrationFiles(): { name: string; sql: string }[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((name) => ({ name, sql: readFileSync(MIGRATIONS_DIR + name, 'utf8') }));
}

export interface MigrateOptions {
  /**
   * Stop after the file whose name starts with this (e.g. '033'): a test of a migration on data made before it
   * seeds a database migrated this far, then migrates the rest. Default: every file.
   */
  upTo?: string;
}

/** Apply the SQL files of db/migrations in name order, each once, each in its own transaction. */
export async function migrate(db: Db, opts: MigrateOptions = {}): Promise<string[]> {
  const applied: string[] = [];
  await db.tx(async (q) => {
    await requireUtf8(q);
    // Another process may be migrating an empty database (seconds): wait for it beyond the pool's lock_timeout.
    await q.query(`SET LOCAL lock_timeout = '120s'`);
    await q.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await q.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set((await q.query<{ name: string }>('SELECT name FROM schema_migrations')).map((r) => r.name));
    const files = migrationFiles();
    const last = opts.upTo === undefined ? files.length - 1 : files.findIndex((f) => f.name.startsWith(opts.upTo!));
    if (opts.upTo !== undefined && last < 0) throw new Error(`migrate: no migration file starts with ${opts.upTo}`);
    for (const file of files.slice(0, last + 1)) {
      if (done.has(file.name)) continue;
      // Each file's statements run in this transaction, so a failing file leaves nothing half-applied.
      for (const statement of splitStatements(file.sql)) await q.query(statement);
      await q.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file.name]);
      applied.push(file.name);
    }
  });
  return applied;
}

/**
 * The ledger's hashes are of UTF-8 text, hashed by the app and by PostgreSQL (ledger/append.ts): a database in another
 * encoding would hash other bytes for any text beyond ASCII, and an append sent with its COMMIT cannot be refused then.
 */
async function requireUtf8(q: Queryable): Promise<void> {
  const [row] = await q.query<{ encoding: string }>(`SELECT current_setting('server_encoding') AS encoding`);
  if (row && row.encoding !== 'UTF8') {
    throw new Error(
      `the database's encoding is ${row.encoding}, not UTF8: the ledger hashes its events as UTF-8 text in the database and in the server, ` +
        'which would disagree beyond ASCII; create the database with ENCODING UTF8 (createdb -E UTF8 -T template0 <name>)',
    );
  }
}

/** Split a migration file into statements at semicolons that end a line outside $$-quoted bodies. */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let current = '';
  let inBody = false;
  for (const line of sql.split('\n')) {
    if (/^\s*--/.test(line) && !inBody) continue;
    current += `${line}\n`;
    if ((line.match(/\$\$/g)?.length ?? 0) % 2 === 1) inBody = !inBody;
    if (!inBody && /;\s*$/.test(line)) {
      statements.push(current.trim().replace(/;$/, ''));
      current = '';
    }
  }
  if (current.trim()) statements.push(current.trim());
  return statements;
}
