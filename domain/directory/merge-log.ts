import { isSqlError, one, type Queryable } from '../../db/types.js';
import type { MergeChange, MergeChangeLog } from './refs.js';

/*
 * A merge's change log (directory_merge_changes): every write of a merge goes through ChangeWriter, which makes it
 * and records the row's key, the column, and the values before and after as the database renders them (to_jsonb),
 * so undoLog can put back exactly what was there wherever a value is still the merge's. Rows whose primary key
 * would change are moved as a delete and an insert. Tables and columns are those of migrations and of families'
 * declared references (plain identifiers, checked), never of a caller.
 */

const IDENT = /^[a-z_][a-z0-9_]*$/;
const ident = (name: string): string => {
  if (!IDENT.test(name)) throw new Error(`merge log: ${name} is not a plain identifier`);
  return `"${name}"`;
};

interface TableShape {
  /** Primary key columns without org_id, in key order. */
  key: string[];
  /** Generated columns: never written, left out of whole-row values. */
  generated: string[];
}

// The schema is the migrations': one shape per table for the life of the process.
const shapes = new Map<string, TableShape>();

async function shapeOf(q: Queryable, table: string): Promise<TableShape> {
  const known = shapes.get(table);
  if (known) return known;
  const rows = await q.query<{ attname: string; generated: boolean; pos: number | null }>(
    `SELECT a.attname, a.attgenerated <> '' AS generated, array_position(i.indkey::int2[], a.attnum) AS pos
       FROM pg_attribute a LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary
      WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped`,
    [ident(table)],
  );
  const key = rows
    .filter((r) => r.pos !== null && r.attname !== 'org_id')
    .sort((a, b) => a.pos! - b.pos!)
    .map((r) => r.attname);
  if (key.length === 0) throw new Error(`merge log: ${table} has no primary key beyond org_id`);
  const shape = { key, generated: rows.filter((r) => r.generated).map((r) => r.attname) };
  shapes.set(table, shape);
  return shape;
}

/** SQL: the row of `table` (aliased t) whose key is the JSON object in parameter $n; org_id is $1. */
const keyWhere = (shape: TableShape, table: string, n: number) =>
  `t.org_id = $1 AND (${shape.key.map((k) => `t.${ident(k)}`).join(', ')}) = (SELECT ${shape.key.map(ident).join(', ')} FROM jsonb_populate_record(NULL::${ident(table)}, $${n}::jsonb))`;

const objectOf = (cols: readonly string[], alias: string) => `jsonb_build_object(${cols.map((c) => `'${c}', to_jsonb(${alias}.${ident(c)})`).join(', ')})`;
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));

export type Row = Record<string, unknown>;

/** Makes and records a merge's writes, in order. Hooks of other families record their own writes through it too. */
export class ChangeWriter implements MergeChangeLog {
  private n = 0;
  readonly changes: MergeChange[] = [];

  constructor(
    private readonly q: Queryable,
    private readonly orgId: string,
    private readonly mergeId: string,
  ) {}

  async record(change: MergeChange): Promise<void> {
    this.n += 1;
    await this.q.query(
      `INSERT INTO directory_merge_changes (org_id, merge_id, n, table_name, row_key, column_name, op, before, after)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8::jsonb, $9::jsonb)`,
      [this.orgId, this.mergeId, this.n, change.table, JSON.stringify(change.rowKey), change.column, change.op, json(change.before), json(change.after)],
    );
    this.changes.push(change);
  }

  /** Set columns of one row (one statement, so checks across columns hold); returns the columns that changed. */
  async update(table: string, key: Row, values: Row): Promise<string[]> {
    const shape = await shapeOf(this.q, table);
    const cols = Object.keys(values);
    const [row] = await this.q.query<{ cur: Row; want: Row }>(
      `SELECT ${objectOf(cols, 't')} AS cur, ${objectOf(cols, 'w')} AS want
         FROM ${ident(table)} t, jsonb_populate_record(NULL::${ident(table)}, $3::jsonb) w
        WHERE ${keyWhere(shape, table, 2)} FOR UPDATE OF t`,
      [this.orgId, JSON.stringify(key), JSON.stringify(values)],
    );
    if (!row) throw new Error(`merge log: no ${table} row ${JSON.stringify(key)}`);
    const changed = cols.filter((c) => !same(row.cur[c], row.want[c]));
    if (changed.length === 0) return [];
    await this.q.query(
      `UPDATE ${ident(table)} t SET ${changed.map((c) => `${ident(c)} = w.${ident(c)}`).join(', ')}
         FROM jsonb_populate_record(NULL::${ident(table)}, $3::jsonb) w WHERE ${keyWhere(shape, table, 2)}`,
      [this.orgId, JSON.stringify(key), JSON.stringify(values)],
    );
    for (const c of changed) await this.record({ table, rowKey: key, column: c, op: 'update', before: row.cur[c], after: row.want[c] });
    return changed;
  }

  /** Point a column at the survivor in every row of the org holding `from` (a family's declared reference). */
  async repoint(table: string, column: string, from: string, to: string): Promise<number> {
    const shape = await shapeOf(this.q, table);
    const rows = await this.q.query<{ key: Row }>(
      `SELECT ${objectOf(shape.key, 't')} AS key FROM ${ident(table)} t WHERE t.org_id = $1 AND t.${ident(column)} = $2
        ORDER BY ${shape.key.map((k) => `t.${ident(k)}`).join(', ')} FOR UPDATE`,
      [this.orgId, from],
    );
    for (const r of rows) await this.update(table, r.key, { [column]: to });
    return rows.length;
  }

  /** The whole row (without generated columns), or undefined. */
  private async whole(table: string, key: Row, lock: boolean): Promise<Row | undefined> {
    const shape = await shapeOf(this.q, table);
    const [row] = await this.q.query<{ row: Row }>(
      `SELECT to_jsonb(t) - $3::text[] AS row FROM ${ident(table)} t WHERE ${keyWhere(shape, table, 2)} ${lock ? 'FOR UPDATE OF t' : ''}`,
      [this.orgId, JSON.stringify(key), shape.generated],
    );
    return row?.row;
  }

  /** Move a row to another key (a primary key holding the party): deleted, then inserted with `changes`. */
  async move(table: string, key: Row, changes: Row): Promise<void> {
    const row = await this.delete(table, key);
    await this.insert(table, { ...row, ...changes });
  }

  async delete(table: string, key: Row): Promise<Row> {
    const shape = await shapeOf(this.q, table);
    const row = await this.whole(table, key, true);
    if (!row) throw new Error(`merge log: no ${table} row ${JSON.stringify(key)}`);
    await this.q.query(`DELETE FROM ${ident(table)} t WHERE ${keyWhere(shape, table, 2)}`, [this.orgId, JSON.stringify(key)]);
    await this.record({ table, rowKey: key, column: null, op: 'delete', before: row, after: null });
    return row;
  }

  async insert(table: string, row: Row): Promise<void> {
    const shape = await shapeOf(this.q, table);
    const inserted = await insertRow(this.q, table, row);
    const key = Object.fromEntries(shape.key.map((k) => [k, inserted[k]]));
    await this.record({ table, rowKey: key, column: null, op: 'insert', before: null, after: inserted });
  }
}

/** Insert a whole row given as JSON (identity values kept); returns it as stored, without generated columns. */
async function insertRow(q: Queryable, table: string, row: Row): Promise<Row> {
  const shape = await shapeOf(q, table);
  const cols = Object.keys(row)
    .filter((c) => !shape.generated.includes(c))
    .map(ident);
  const out = one(
    await q.query<{ row: Row }>(
      `INSERT INTO ${ident(table)} AS t (${cols.join(', ')}) OVERRIDING SYSTEM VALUE
     SELECT ${cols.join(', ')} FROM jsonb_populate_record(NULL::${ident(table)}, $1::jsonb) RETURNING to_jsonb(t) - $2::text[] AS row`,
      [JSON.stringify(row), shape.generated],
    ),
  );
  return out.row;
}

export interface KeptEdit {
  table: string;
  key: Row;
  column: string | null;
  reason: 'edited' | 'gone' | 'conflict';
}

interface LoggedChange {
  n: number;
  table_name: string;
  row_key: Row;
  column_name: string | null;
  op: 'update' | 'insert' | 'delete';
  before: unknown;
  after: unknown;
}

/** Integrity refusals a later write can cause (a unique, foreign-key or check clash): that change is kept. */
const CLASH = ['23505', '23503', '23514'];

/**
 * Run a merge's log backwards. A value still the merge's is put back; one a later write changed stays (kept,
 * edited), as does a row gone since (gone) or a restore that would clash with later rows (conflict). Updates of one
 * row in a run are restored together, so checks across its columns hold.
 */
export async function undoLog(
  q: Queryable,
  orgId: string,
  mergeId: string,
): Promise<{ restored: number; kept: KeptEdit[]; rows: { table: string; key: Row }[] }> {
  const log = await q.query<LoggedChange>(
    `SELECT n, table_name, row_key, column_name, op, before, after FROM directory_merge_changes WHERE org_id = $1 AND merge_id = $2 ORDER BY n DESC`,
    [orgId, mergeId],
  );
  const groups: LoggedChange[][] = [];
  for (const c of log) {
    const last = groups[groups.length - 1];
    if (c.op === 'update' && last && last[0].op === 'update' && last[0].table_name === c.table_name && same(last[0].row_key, c.row_key)) last.push(c);
    else groups.push([c]);
  }
  let restored = 0;
  const kept: KeptEdit[] = [];
  for (const group of groups) {
    const { table_name: table, row_key: key } = group[0];
    const keep = (column: string | null, reason: KeptEdit['reason']) => kept.push({ table, key, column, reason });
    await q.query('SAVEPOINT merge_undo');
    try {
      restored += await undoGroup(q, orgId, group, keep);
      await q.query('RELEASE SAVEPOINT merge_undo');
    } catch (err) {
      if (!CLASH.some((code) => isSqlError(err, code))) throw err;
      await q.query('ROLLBACK TO SAVEPOINT merge_undo');
      await q.query('RELEASE SAVEPOINT merge_undo');
      for (const c of group) keep(c.column_name, 'conflict');
    }
  }
  const rows = [...new Map(log.map((c) => [`${c.table_name}:${JSON.stringify(c.row_key)}`, { table: c.table_name, key: c.row_key }])).values()];
  return { restored, kept, rows };
}

async function undoGroup(
  q: Queryable,
  orgId: string,
  group: LoggedChange[],
  keep: (column: string | null, reason: KeptEdit['reason']) => void,
): Promise<number> {
  const { table_name: table, row_key: key, op } = group[0];
  const shape = await shapeOf(q, table);
  const [current] = await q.query<{ row: Row }>(
    `SELECT to_jsonb(t) - $3::text[] AS row FROM ${ident(table)} t WHERE ${keyWhere(shape, table, 2)} FOR UPDATE OF t`,
    [orgId, JSON.stringify(key), shape.generated],
  );
  if (op === 'update') {
    if (!current) {
      for (const c of group) keep(c.column_name, 'gone');
      return 0;
    }
    const back: Row = {};
    for (const c of group) {
      if (same(current.row[c.column_name!], c.after)) back[c.column_name!] = c.before;
      else keep(c.column_name, 'edited');
    }
    const cols = Object.keys(back);
    if (cols.length === 0) return 0;
    await q.query(
      `UPDATE ${ident(table)} t SET ${cols.map((c) => `${ident(c)} = w.${ident(c)}`).join(', ')}
         FROM jsonb_populate_record(NULL::${ident(table)}, $3::jsonb) w WHERE ${keyWhere(shape, table, 2)}`,
      [orgId, JSON.stringify(key), JSON.stringify(back)],
    );
    return cols.length;
  }
  const [c] = group;
  if (op === 'insert') {
    if (!current) {
      keep(null, 'gone');
      return 0;
    }
    if (!same(current.row, c.after)) {
      keep(null, 'edited');
      return 0;
    }
    await q.query(`DELETE FROM ${ident(table)} t WHERE ${keyWhere(shape, table, 2)}`, [orgId, JSON.stringify(key)]);
    return 1;
  }
  if (current) {
    keep(null, 'conflict');
    return 0;
  }
  await insertRow(q, table, c.before as Row);
  return 1;
}
