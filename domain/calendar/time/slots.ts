/*
 * The interval math of findATime (pure: no database, no zones). An interval is [start, end) in epoch milliseconds;
 * lists are kept sorted and merged. The algorithm is Cal.com's in outline: each attendee's available time is their
 * working hours minus their busy blocks widened by the buffer; the required attendees' available times are
 * intersected; candidate starts step through each free run on a grid; a slot fits when it ends inside the run.
 * Optional attendees never narrow the slots: each slot names those free for all of it.
 */

export type Interval = [number, number];

const DAY_MS = 86_400_000;

/** Sorted, with overlapping or touching intervals merged and empty ones dropped. */
export function normalize(list: readonly Interval[]): Interval[] {
  const sorted = list.filter(([s, e]) => e > s).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: Interval[] = [];
  for (const [s, e] of sorted) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** Where both normalized lists hold. */
export function intersect(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const s = Math.max(a[i][0], b[j][0]);
    const e = Math.min(a[i][1], b[j][1]);
    if (e > s) out.push([s, e]);
    if (a[i][1] < b[j][1]) i++;
    else j++;
  }
  return out;
}

/** `a` minus `b` (both normalized). */
export function subtract(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  let j = 0;
  for (const [s0, e] of a) {
    let s = s0;
    while (j < b.length && b[j][1] <= s) j++;
    let k = j;
    while (k < b.length && b[k][0] < e) {
      if (b[k][0] > s) out.push([s, b[k][0]]);
      s = Math.max(s, b[k][1]);
      if (s >= e) break;
      k++;
    }
    if (s < e) out.push([s, e]);
  }
  return out;
}

/** Every interval widened by `ms` on both sides (a buffer around busy time), merged. */
export const widen = (list: readonly Interval[], ms: number): Interval[] => normalize(list.map(([s, e]) => [s - ms, e + ms]));

/** Whether [s, e) lies inside one interval of a normalized list. */
export function covers(list: readonly Interval[], s: number, e: number): boolean {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid][1] <= s) lo = mid + 1;
    else if (list[mid][0] > s) hi = mid - 1;
    else return list[mid][1] >= e;
  }
  return false;
}

/** The first grid point at or after t: multiples of step counted from t's UTC midnight. */
export function onGrid(t: number, step: number): number {
  const midnight = Math.floor(t / DAY_MS) * DAY_MS;
  return midnight + Math.ceil((t - midnight) / step) * step;
}

export interface SlotPerson {
  id: string;
  optional: boolean;
  /** Busy blocks (any order, may overlap). */
  busy: readonly Interval[];
  /** Working intervals inside the window; null: any time. */
  hours: readonly Interval[] | null;
}

export interface SlotQuery {
  people: readonly SlotPerson[];
  from: number;
  to: number;
  durationMs: number;
  stepMs: number;
  bufferMs: number;
  /** No slot starts before this (now + minNotice). */
  earliest: number;
  limit: number;
}

export interface FoundSlot {
  start: number;
  end: number;
  optionalFree: string[];
}

export interface SlotResult {
  slots: FoundSlot[];
  more: boolean;
  nextFrom: number | null;
}

/** One person's available time in the window: hours (or all of it) minus busy widened by the buffer. */
export function availability(p: SlotPerson, from: number, to: number, bufferMs: number): Interval[] {
  const base = p.hours === null ? [[from, to] as Interval] : normalize(p.hours.map(([s, e]) => [Math.max(s, from), Math.min(e, to)] as Interval));
  return subtract(base, widen(p.busy, bufferMs));
}

/** The slots of a query (see the top of this file); no required person: none. */
export function findSlots(q: SlotQuery): SlotResult {
  const required = q.people.filter((p) => !p.optional);
  const optional = q.people.filter((p) => p.optional);
  if (required.length === 0 || q.to <= q.from) return { slots: [], more: false, nextFrom: null };
  let free: Interval[] = [[q.from, q.to]];
  for (const p of required) {
    free = intersect(free, availability(p, q.from, q.to, q.bufferMs));
    if (free.length === 0) break;
  }
  const optionalFree = optional.map((p) => ({ id: p.id, free: availability(p, q.from, q.to, q.bufferMs) }));
  const slots: FoundSlot[] = [];
  for (const [s, e] of free) {
    for (let t = onGrid(Math.max(s, q.earliest), q.stepMs); t + q.durationMs <= e; t += q.stepMs) {
      if (slots.length === q.limit) return { slots, more: true, nextFrom: t };
      const end = t + q.durationMs;
      slots.push({ start: t, end, optionalFree: optionalFree.filter((o) => covers(o.free, t, end)).map((o) => o.id) });
    }
  }
  return { slots, more: false, nextFrom: null };
}
