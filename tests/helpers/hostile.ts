/**
 * Hostile inputs shared by the tests that walk every deployed method (pollution, fuzzing): reserved keys,
 * values set at a path of a contract's example, and what Object.prototype has gained.
 */

export const RESERVED = ['__proto__', 'constructor', 'prototype'] as const;

export const RESERVED_MESSAGE = 'not accepted as a field name (__proto__, constructor and prototype are reserved)';

/** `obj` with an own `key` (an object literal's "__proto__" would set the prototype instead; fromEntries does not). */
export const withKey = (obj: unknown, key: string, value: unknown): Record<string, unknown> =>
  Object.fromEntries([[key, value], ...Object.entries(obj !== null && typeof obj === 'object' && !Array.isArray(obj) ? obj : {})]);

export type Path = (string | number)[];

/** Every path in a JSON value: each object field and array item, at every depth (the root is []). */
export function pathsOf(value: unknown, at: Path = []): Path[] {
  const out: Path[] = [at];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...pathsOf(v, [...at, i])));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, [...at, k]));
  return out;
}

export const getAt = (value: unknown, path: Path): unknown => path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)?.[k], value);

/** A copy of `value` with `leaf` at `path` (the rest shared; a missing parent made, an array for an index). */
export function setAt(value: unknown, path: Path, leaf: unknown): unknown {
  if (path.length === 0) return leaf;
  const [k, ...rest] = path;
  if (typeof k === 'number' && !Array.isArray(value)) return setAt([], path, leaf);
  if (Array.isArray(value))
    return typeof k === 'number' && k >= value.length ? [...value, setAt(undefined, rest, leaf)] : value.map((v, i) => (i === k ? setAt(v, rest, leaf) : v));
  const obj = (value !== null && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  return Object.fromEntries([...Object.entries(obj).filter(([key]) => key !== k), [String(k), setAt(obj[k as string], rest, leaf)]]);
}

/** Names Object.prototype has that a fresh one does not: empty unless something polluted it. */
const PRISTINE = new Set(Object.getOwnPropertyNames(Object.prototype));
export const pollutedNames = (): string[] => Object.getOwnPropertyNames(Object.prototype).filter((k) => !PRISTINE.has(k));

/** Undo any pollution (so one failing file cannot break the files sharing its worker) and say what was found. */
export function cleanPrototype(): string[] {
  const found = pollutedNames();
  for (const k of found) delete (Object.prototype as Record<string, unknown>)[k];
  return found;
}
