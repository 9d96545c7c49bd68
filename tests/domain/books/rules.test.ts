import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect } from 'vitest';
import { it } from '../../helpers/fixtures.js';
import { STATIC_RULES, rulesMarkdown, rulesTable } from '../../../domain/books/rates/rules.js';
import { covers, ruleInForce } from '../../../domain/books/rates/rule.js';
import { maxContributionBase, superGuaranteeRate } from '../../../domain/books/rates/super.js';
import { loadedSchedules, scheduleName } from '../../../domain/books/rates/index.js';
import { fromProjectRoot } from '../../../db/project-root.js';

/*
 * The dated rules table (domain/books/rates): values by date with their law and status, the lookups code uses,
 * GET /policy's books.rules, and the table in docs/books.md, which must equal what the rows render.
 */

const DOC = fromProjectRoot('docs', 'books.md');
const START = '<!-- rules:start (generated from domain/books/rates by tests/domain/books/rules.test.ts) -->';
const END = '<!-- rules:end -->';

describe('the rules table', () => {
  it('every row has a law, an https source and a status; rows of one rule never overlap among LAW rows', () => {
    for (const r of STATIC_RULES) {
      expect(r.law.length, JSON.stringify(r)).toBeGreaterThan(20);
      expect(r.source, JSON.stringify(r)).toMatch(/^https:\/\/[^ ]+$/);
      expect(['LAW', 'NOT_LAW']).toContain(r.status);
      expect(r.to === null || r.from <= r.to).toBe(true);
    }
    const law = STATIC_RULES.filter((r) => r.status === 'LAW');
    for (const a of law)
      for (const b of law) if (a !== b && a.rule === b.rule) expect(covers(a, b.from) || covers(b, a.from), `${a.rule} ${a.from} / ${b.from}`).toBe(false);
  });

  it('the super guarantee rate by pay date: 11% 2023-24, 11.5% 2024-25, 12% from 1 July 2025 with no end', () => {
    expect(['2023-07-01', '2024-06-30', '2024-07-01', '2025-06-30', '2025-07-01', '2031-01-01'].map(superGuaranteeRate)).toEqual([
      1_100, 1_100, 1_150, 1_150, 1_200, 1_200,
    ]);
    expect(() => superGuaranteeRate('2023-06-30')).toThrow(/no super\.guaranteeRate is recorded in law for 2023-06-30/);
  });

  it('the maximum contribution base: $62,270, $65,070, $62,500 a quarter to 30 June 2026, then $270,830 for 2026-27', () => {
    const at = (d: string) => [maxContributionBase(d).value, maxContributionBase(d).per];
    expect(at('2024-06-30')).toEqual([6_227_000, 'QUARTER']);
    expect(at('2024-07-01')).toEqual([6_507_000, 'QUARTER']);
    expect(at('2026-06-30')).toEqual([6_250_000, 'QUARTER']);
    expect(at('2026-07-01')).toEqual([27_083_000, 'FINANCIAL_YEAR']);
    // Payday Super's base: the concessional contributions cap ($32,500 for 2026-27) * 100 / 12, down to a $10 multiple.
    expect(Math.floor((32_500 * 100) / 12 / 10) * 10 * 100).toBe(maxContributionBase('2027-06-30').value);
    expect(() => maxContributionBase('2027-07-01')).toThrow(
      /no super\.maxContributionBase is recorded in law for 2027-07-01 \(recorded: .*2026-07-01 to 2027-06-30\)/,
    );
  });

  it('the instant asset write-off: $20,000 by law each year to 30 June 2026; from 1 July 2026 $1,000 is law and the announced $20,000 is not', () => {
    const rows = STATIC_RULES.filter((r) => r.rule === 'assets.instantWriteOffThreshold');
    expect(rows.map((r) => [r.from, r.to, r.value, r.status])).toEqual([
      ['2023-07-01', '2024-06-30', 2_000_000, 'LAW'],
      ['2024-07-01', '2025-06-30', 2_000_000, 'LAW'],
      ['2025-07-01', '2026-06-30', 2_000_000, 'LAW'],
      ['2026-07-01', null, 100_000, 'LAW'],
      ['2026-07-01', null, 2_000_000, 'NOT_LAW'],
    ]);
    // A lookup never applies an announcement.
    expect(ruleInForce(STATIC_RULES, 'assets.instantWriteOffThreshold', '2026-11-02').value).toBe(100_000);
    expect(rows[4].law).toMatch(/2026-27 Budget/);
  });
});

describe('GET /policy books.rules', () => {
  it('returns the whole table, each row with law, source and status, the PAYG schedules loaded among them', async ({ books: s }) => {
    const res = await s.client.get('policy');
    expect(res.status, res.raw).toBe(200);
    const rules = res.body.books.rules;
    expect(rules).toEqual((await rulesTable(s.runtime.db)).map((r) => ({ ...r, per: r.per ?? null })));
    expect(rules.find((r: any) => r.rule === 'super.maxContributionBase' && r.from === '2026-07-01')).toEqual({
      rule: 'super.maxContributionBase',
      from: '2026-07-01',
      to: '2027-06-30',
      value: 27_083_000,
      unit: 'cents',
      per: 'FINANCIAL_YEAR',
      status: 'LAW',
      law: expect.stringMatching(/s 10A\(5\).*No\. 57 of 2025/),
      source: expect.stringMatching(/^https:\/\//),
    });
    const payg = rules.filter((r: any) => r.rule === 'payg.schedule');
    const loaded = await loadedSchedules(s.runtime.db);
    expect(payg.map((r: any) => [r.value, r.from, r.to, r.source])).toEqual(loaded.map((x) => [scheduleName(x), x.from, x.to, x.source]));
    expect(rules.filter((r: any) => r.status === 'NOT_LAW').map((r: any) => r.rule)).toEqual(['assets.instantWriteOffThreshold']);
  });
});

describe('docs/books.md "Rules in force by date"', () => {
  it('is the table the rows render (WRITE_RULES_DOC=1 rewrites it)', () => {
    const doc = readFileSync(DOC, 'utf8');
    const [a, b] = [doc.indexOf(START), doc.indexOf(END)];
    expect(a, `docs/books.md needs the markers ${START} … ${END}`).toBeGreaterThan(0);
    const expected = `${START}\n${rulesMarkdown(STATIC_RULES)}\n${END}`;
    const actual = doc.slice(a, b + END.length);
    if (process.env.WRITE_RULES_DOC === '1' && actual !== expected) writeFileSync(DOC, doc.slice(0, a) + expected + doc.slice(b + END.length));
    else expect(actual).toBe(expected);
  });

  it('no longer states a super rate without its dates', () => {
    const doc = readFileSync(DOC, 'utf8').replace(doc0Table(), '');
    for (const line of doc.split('\n')) if (/\b12%/.test(line)) expect(line, 'a rate needs its date').toMatch(/1 July 2025|from 2025-07-01/);
  });
});

/** The generated table, left out when checking the prose. */
function doc0Table(): string {
  const doc = readFileSync(DOC, 'utf8');
  return doc.slice(doc.indexOf(START), doc.indexOf(END) + END.length);
}
