/**
 * Both drivers return the same JS types: int8 as a number (refusing values past 2^53 rather than rounding),
 * timestamps as ISO strings with milliseconds, dates as YYYY-MM-DD strings.
 */
export const OID = { int8: 20, date: 1082, timestamp: 1114, timestamptz: 1184 } as const;

export function parseInt8(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`int8 ${text} does not fit a JS number`);
  return n;
}

export function parseTimestamp(text: string): string {
  // timestamptz text is e.g. "2026-11-22 06:25:11.650123+00" (zone may be +HH, +HH:MM or absent for timestamp).
  const m = /^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(\.\d+)?([+-]\d\d)?(?::?(\d\d))?$/.exec(text);
  if (!m) throw new RangeError(`unexpected timestamp text ${text}`);
  const millis = (m[3] ?? '.000').slice(0, 4).padEnd(4, '0');
  const zone = m[4] ? `${m[4]}:${m[5] ?? '00'}` : 'Z';
  return new Date(`${m[1]}T${m[2]}${millis}${zone}`).toISOString();
}

export const parseDate = (text: string): string => text;

export const PARSERS: Record<number, (text: string) => unknown> = {
  [OID.int8]: parseInt8,
  [OID.date]: parseDate,
  [OID.timestamp]: parseTimestamp,
  [OID.timestamptz]: parseTimestamp,
};
