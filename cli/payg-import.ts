import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Db } from '../db/types.js';
import { importSchedule, scheduleName } from '../domain/books/rates/index.js';

/*
 * `payg-import <file.json|file.csv> [--from YYYY-MM-DD]`: load an ATO Schedule 1 (the coefficients as the ATO publishes
 * them, with its sample data) without a release. Validated before anything is stored; stored once for every
 * org and ledgered in each org's chain as an operator act (actor "").
 */

/**
 * The CSV form, one fact per line (# starts a comment): `meta,<label|from|to|source|published>,<value>`,
 * `coefficient,<scale 1|2|3|5|6>,<lessThan, empty on the last row>,<a>,<b>` in the ATO's table order,
 * `scale4,<resident rate>,<foreign rate>` (no TFN, e.g. 0.47 and 0.45), and
 * `sample,<scale>,<WEEKLY|FORTNIGHTLY|MONTHLY>,<gross dollars>,<withheld dollars>[,<RESIDENT|FOREIGN> for scale 4]`;
 * the older `sample,<scale>,<weekly earnings>,<withheld>` is read as a weekly sample. It becomes the JSON form,
 * checked the same way.
 */
export function scheduleFromCsv(text: string): unknown {
  const out: Record<string, unknown> = { scales: {}, samples: [] as unknown[] };
  const num = (v: string | undefined, where: string): number => {
    const n = Number(v);
    if (v === undefined || v.trim() === '' || !Number.isFinite(n)) throw new Error(`${where}: ${JSON.stringify(v ?? '')} is not a number`);
    return n;
  };
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const [kind, ...f] = line.split(',').map((c) => c.trim());
    const where = `line ${i + 1}`;
    if (kind === 'meta' && f.length === 2) out[f[0]] = f[1];
    else if (kind === 'coefficient' && f.length === 4) {
      const rows = ((out.scales as Record<string, unknown[]>)[f[0]] ??= []);
      rows.push([f[1] === '' ? null : num(f[1], where), num(f[2], where), num(f[3], where)]);
    } else if (kind === 'scale4' && f.length === 2) (out.scales as Record<string, unknown>)['4'] = { resident: num(f[0], where), foreign: num(f[1], where) };
    else if (kind === 'sample' && f.length === 3)
      (out.samples as unknown[]).push({ scale: f[0], weeklyEarnings: num(f[1], where), withheld: num(f[2], where) });
    else if (kind === 'sample' && (f.length === 4 || f.length === 5)) {
      const dollars = num(f[2], where);
      if (Math.abs(dollars * 100 - Math.round(dollars * 100)) > 1e-6) throw new Error(`${where}: gross ${f[2]} must be dollars with at most 2 decimals`);
      (out.samples as unknown[]).push({
        scale: f[0],
        frequency: f[1],
        grossCents: Math.round(dollars * 100),
        withheld: num(f[3], where),
        ...(f[4] ? { residency: f[4] } : {}),
      });
    } else {
      throw new Error(
        `${where}: expected meta,<name>,<value> | coefficient,<scale>,<lessThan>,<a>,<b> | scale4,<resident>,<foreign> | sample,<scale>,<frequency>,<gross>,<withheld>[,<residency>]`,
      );
    }
  });
  return out;
}

/** The file, parsed (JSON, or CSV by its .csv extension), read before any database is opened. */
export async function readScheduleFile(file: string): Promise<{ raw: unknown; fileName: string }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${file}: ${(err as Error).message}`);
  }
  if (file.toLowerCase().endsWith('.csv')) {
    try {
      return { raw: scheduleFromCsv(text), fileName: basename(file) };
    } catch (err) {
      throw new Error(`${basename(file)}: ${(err as Error).message}`);
    }
  }
  try {
    return { raw: JSON.parse(text), fileName: basename(file) };
  } catch (err) {
    throw new Error(`${basename(file)}: not JSON (${(err as Error).message}); the format is in docs/books.md, "Loading a schedule"`);
  }
}

export async function paygImportCommand(db: Db, f: { raw: unknown; fileName: string }, from?: string): Promise<string> {
  let r: Awaited<ReturnType<typeof importSchedule>>;
  try {
    r = await importSchedule(db, f.raw, { from });
  } catch (err) {
    throw new Error(`${f.fileName}: ${(err as Error).message}`);
  }
  const s = r.schedule;
  return `${r.replaced ? 'Replaced' : 'Loaded'} ${scheduleName(s)}: payments ${s.from} to ${s.to}, scales ${Object.keys(s.scales).sort().join(', ')}, ${s.samples.length} sample rows reproduced; source ${s.source} (published ${s.published}); ledgered in ${r.orgs} orgs`;
}
