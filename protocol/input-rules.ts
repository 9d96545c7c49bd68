/**
 * The rules every caller-supplied value meets before any code walks, hashes, stores or merges it; one copy,
 * used by the JSON walk every face runs (json-bounds.ts), by the text() field builder and by the SCIM PATCH
 * face, which assigns by path.
 *
 * Prototype pollution: `o[k] = v` with k "__proto__" replaces o's prototype, and an assignment by path
 * (`a.__proto__.x`, `a.constructor.prototype.x`) writes to Object.prototype itself, which every object of every
 * org inherits until the process restarts. No contract names a field "__proto__", "constructor" or "prototype",
 * so they are refused wherever a name comes from a caller, not escaped.
 */

/** Names that reach an object's prototype when assigned or walked by path. */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export const RESERVED_KEYS_NOTE = '__proto__, constructor and prototype are reserved';

/** An object key that is itself a reserved name (exact, as JavaScript compares property names). */
export const isReservedKey = (key: string): boolean => RESERVED_KEYS.has(key);

/**
 * The first reserved name among the segments of a path (`name.__proto__.x`, `emails[type eq "w"].constructor`),
 * compared without case: SCIM attribute names ignore case, and a false refusal costs nothing (no attribute has
 * such a name). Undefined if there is none.
 */
export function reservedSegment(path: string): string | undefined {
  for (const segment of path.split(/[^A-Za-z0-9_$]+/)) {
    if (RESERVED_KEYS.has(segment.toLowerCase())) return segment;
  }
  return undefined;
}

/**
 * The text rule: well-formed Unicode without NUL. PostgreSQL refuses NUL in text and jsonb, and a lone surrogate
 * would be replaced on the way to the database (or refused by the canonical JSON the ledger hashes), so the
 * stored text would not be the text hashed.
 */
export const wellFormedText = (s: string): boolean => !s.includes('\u0000') && s.isWellFormed();

export const TEXT_RULE_MESSAGE = 'must be well-formed Unicode text without NUL characters';

/** A key or value as a message may quote it: NUL and lone surrogates shown as U+FFFD. */
export const printable = (s: string): string => s.replaceAll('\u0000', '\ufffd').toWellFormed();

/**
 * The prototype of isolatedCopy's objects: not Object.prototype, nothing reachable by a path, only the two
 * methods code comparing or printing plain objects calls (fast-deep-equal checks valueOf and toString are
 * Object.prototype's). Writable, so an assignment of those names makes an own property instead of throwing.
 */
const ISOLATED: object = Object.create(null, {
  valueOf: { value: Object.prototype.valueOf, writable: true },
  toString: { value: Object.prototype.toString, writable: true },
});

/**
 * A deep copy of JSON data whose objects do not inherit from Object.prototype: assigning "__proto__",
 * "constructor.prototype.x" or anything else by path on it creates own properties and reaches nothing else.
 * For code (a library) that assigns into caller-shaped data by path.
 */
export function isolatedCopy<T>(value: T): T {
  if (Array.isArray(value)) return value.map(isolatedCopy) as T;
  if (value === null || typeof value !== 'object') return value;
  const out = Object.create(ISOLATED) as Record<string, unknown>;
  for (const [k, v] of Object.entries(value)) out[k] = isolatedCopy(v);
  return out as T;
}
