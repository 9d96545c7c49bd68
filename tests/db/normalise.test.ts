import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openDb } from '../../db/index.js';
import { parseTimestamp } from '../../db/normalise.js';
import { DATABASE_URL } from '../helpers/harness.js';

/*
 * Timestamps as both drivers return them (db/normalise.ts): ISO in UTC with milliseconds cut, not rounded. The text
 * path for UTC and zoneless text is held to Date's reading of the same instant, and both to PostgreSQL's own
 * formatting of the value.
 */

/** What Date makes of PostgreSQL's text: the reading the text path replaced. */
const byDate = (date: string, time: string, fraction: string, zone: string) =>
  new Date(`${date}T${time}.${(fraction + '000').slice(0, 3)}${zone === '' || zone === '+00' ? 'Z' : `${zone}:00`}`).toISOString();

describe('parseTimestamp', () => {
  it('reads UTC and zoneless text as Date does, for any instant, fraction and zone shape', () => {
    const instants = fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true });
    const fractions = fc.stringMatching(/^\d{0,6}$/);
    fc.assert(
      fc.property(instants, fractions, fc.constantFrom('', '+00', '+10', '-03'), (at, fraction, zone) => {
        const [date, rest] = at.toISOString().split('T');
        const time = rest.slice(0, 8);
        const text = `${date} ${time}${fraction ? `.${fraction}` : ''}${zone}`;
        expect(parseTimestamp(text)).toBe(byDate(date, time, fraction, zone));
      }),
      { numRuns: 2000 },
    );
  });

  it('moves other offsets to UTC and refuses what is not a timestamp', () => {
    expect(parseTimestamp('2026-11-22 06:25:11.65+10')).toBe('2026-11-21T20:25:11.650Z');
    expect(parseTimestamp('2026-11-22 06:25:11+05:30')).toBe('2026-11-22T00:55:11.000Z');
    expect(parseTimestamp('2026-11-22 06:25:11.999999')).toBe('2026-11-22T06:25:11.999Z');
    expect(() => parseTimestamp('infinity')).toThrow('unexpected timestamp text infinity');
    expect(() => parseTimestamp('2026-11-22 06:25:11 BC')).toThrow(RangeError);
  });

  it("answers what PostgreSQL's own formatting of the value says", async () => {
    const db = await openDb({ databaseUrl: DATABASE_URL, inMemory: true });
    try {
      const rows = await db.query<{ tz: string; plain: string; tz_text: string; plain_text: string }>(
        `SELECT v AS tz, v AT TIME ZONE 'UTC' AS plain,
                to_char(v AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS tz_text, to_char(v AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS plain_text
           FROM (SELECT timestamptz '2026-03-29 00:59:59.999999+00' + make_interval(secs => n * 3607.123457) AS v FROM generate_series(0, 400) AS n) AS x`,
      );
      expect(rows).toHaveLength(401);
      for (const r of rows) expect([r.tz, r.plain]).toEqual([r.tz_text, r.plain_text]);
    } finally {
      await db.close();
    }
  });
});
