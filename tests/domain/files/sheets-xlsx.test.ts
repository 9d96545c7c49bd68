import { spawnSync } from 'node:child_process';
import { describe, expect } from 'vitest';
import { it } from '../../helpers/fixtures.js';
import { ok } from '../../helpers/calls.js';
import { download } from './drive-kit.js';

/* A sheet's xlsx export, read back by an independent reader: Debian's python3-openpyxl (formulas, then the cached values). */

const PY = '/usr/bin/python3';
const missing =
  spawnSync(PY, ['-c', 'import openpyxl'], { encoding: 'utf8' }).status === 0 ? undefined : `${PY} cannot import openpyxl (apt-get install python3-openpyxl)`;

/** Each worksheet's cells as openpyxl reads them: with formulas, and with the values the file caches. */
function readWithOpenpyxl(bytes: Buffer): { formulas: Record<string, Record<string, unknown>>; values: Record<string, Record<string, unknown>> } {
  const script = `
import sys, io, json, openpyxl
data = sys.stdin.buffer.read()
def dump(wb):
    return {ws.title: {c.coordinate: c.value for row in ws.iter_rows() for c in row if c.value is not None} for ws in wb.worksheets}
print(json.dumps({"formulas": dump(openpyxl.load_workbook(io.BytesIO(data))), "values": dump(openpyxl.load_workbook(io.BytesIO(data), data_only=True))}, default=str))
`;
  const res = spawnSync(PY, ['-c', script], { input: bytes, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`openpyxl refused the workbook: ${res.stderr}`);
  return JSON.parse(res.stdout);
}

describe.skipIf(missing !== undefined)(`files.exportRequest xlsx, read by python3-openpyxl${missing ? ` [skipped: ${missing}]` : ''}`, () => {
  it('keeps every tab, each formula and its computed value, numbers, text, booleans and error values', async ({ drive: o }) => {
    const content = {
      tabs: [
        { title: 'Costs', cells: { A1: '1', A2: '2', A3: '3', A4: '=SUM(A1:A3)', B1: 'Rent & <rates>', B2: 'TRUE', B3: '=A1/0', C1: '=B1&"!"' } },
        { title: 'Summary', cells: { A1: '=Costs!A4*10', B1: '2.5' } },
      ],
    };
    const { file } = await ok(o.s, 'files.create', { kind: 'sheet', name: 'Budget', content }, o.mia.key);
    const exp = await ok(o.s, 'files.exportRequest', { fileId: file.id, format: 'xlsx' }, o.mia.key);
    expect(exp.export).toMatchObject({ format: 'xlsx' });
    const res = await download(o.s, `${new URL(exp.url).pathname}${new URL(exp.url).search}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('spreadsheetml');
    const book = readWithOpenpyxl(res.bytes);
    expect(Object.keys(book.formulas)).toEqual(['Costs', 'Summary']);
    expect(book.formulas.Costs).toMatchObject({ A1: 1, A2: 2, A3: 3, A4: '=SUM(A1:A3)', B1: 'Rent & <rates>', B2: true, B3: '=A1/0' });
    expect(book.formulas.Summary).toMatchObject({ A1: '=Costs!A4*10', B1: 2.5 });
    expect(book.values.Costs).toMatchObject({ A4: 6, B3: '#DIV/0!', C1: 'Rent & <rates>!' });
    expect(book.values.Summary).toMatchObject({ A1: 60, B1: 2.5 });
  });
});
