import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseParams } from '../../protocol/schema.js';
import { z } from 'zod';

/*
 * BAD_REQUEST names the field as the caller wrote it inside params, the way zod's issues do: `to.0`,
 * `cells.3.input`, `filter.role`; never `params.to` or `cells[3]`. Every face (HTTP, MCP) and every check (the
 * contract's schema or a handler's own) then names a field one way, and an agent can find it in what it sent.
 * This reads every hand-written BAD_REQUEST in the server and checks the field it names.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DIRS = ['domain', 'db', 'gateway', 'mcp', 'ai-gateway', 'protocol'];
// SCIM names fields as RFC 7644 does (`Operations[0].path`): its clients read that form.
const EXEMPT = [/^gateway\/scim\//];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : name.endsWith('.ts') ? [path] : [];
  });
}

/** The start of every field a badRequest(...) or new ApiError('BAD_REQUEST', ...) names with a literal. */
function fields(): { where: string; field: string }[] {
  const out: { where: string; field: string }[] = [];
  for (const file of DIRS.flatMap((d) => sourceFiles(join(ROOT, d)))) {
    const where = relative(ROOT, file);
    if (EXEMPT.some((re) => re.test(where))) continue;
    const text = readFileSync(file, 'utf8');
    const found = [...text.matchAll(/badRequest\(\s*([`'"])([^`'"]*)\1/g), ...text.matchAll(/new ApiError\(\s*'BAD_REQUEST'\s*,\s*([`'"])([^:`'"]*):/g)];
    for (const m of found) out.push({ where: `${where}:${text.slice(0, m.index).split('\n').length}`, field: m[2] });
  }
  return out;
}

describe('BAD_REQUEST field names', () => {
  it('every hand-written check names its field inside params, with dotted indexes', () => {
    const all = fields();
    expect(all.length).toBeGreaterThan(200); // the scan sees the checks (it cannot pass by finding none)
    // An index is `[0]` or `[${i}]` outside any interpolation (`${list[1].name}` is code, not the field's form).
    const shown = (field: string) => field.replace(/\$\{(\w+)\}/g, '$').replace(/\$\{[^}]*\}/g, 'x');
    const wrong = all.filter(({ field }) => /^params\./.test(field) || /\[(\d+|\$)\]/.test(shown(field)));
    expect(wrong.map((w) => `${w.where}: ${w.field}`)).toEqual([]);
  });

  it('the contract schema names fields the same way', () => {
    const schema = z.strictObject({ to: z.array(z.email()), cells: z.array(z.strictObject({ a1: z.string() })) });
    expect(() => parseParams(schema, { to: ['nope'], cells: [] })).toThrow(/^to\.0: /);
    expect(() => parseParams(schema, { to: [], cells: [{ a1: 1 }] })).toThrow(/^cells\.0\.a1: /);
    expect(() => parseParams(schema, { to: [], cells: [], body: 'x' })).toThrow(/^body: unknown field/);
    expect(() => parseParams(schema, 7)).toThrow(/^params: /);
  });
});
