import { ApiError, notFound } from '../protocol/errors.js';
import type { TARGET_TYPES } from '../protocol/methods/annotation.js';
import type { Queryable } from '../db/types.js';
import type { Principal } from './core/auth.js';
import type { FamilySet } from './core/family.js';
import type { FileAccess } from './files/index.js';

/*
 * References: what an id prefix names, the key scope reading it needs, and its family's own
 * read check, so that no pin or annotation leaks its target. Each family contributes its prefixes from its
 * descriptor (`contributes: { references }`); nothing here reads a family's tables. A target the caller cannot read
 * (another org's, unknown, private, an event of a family its key cannot see) is NOT_FOUND, never FORBIDDEN; a key
 * without the target's read scope is FORBIDDEN_SCOPE naming it (it says nothing about the record).
 */

export type TargetType = (typeof TARGET_TYPES)[number];

export interface Target {
  id: string;
  type: TargetType;
  /** fil_: the file and the caller's role on it. */
  file?: FileAccess;
  /** Whether the caller edits the record (dismisses others' threads on it): file editors, a message's author, ... */
  editor: boolean;
}

export type TargetFacts = Omit<Target, 'id' | 'type'>;

/** One kind of record others may point at, by its id prefix. */
export interface Reference {
  type: TargetType;
  /** The key scope reading this kind of record needs. */
  scope: string;
  /** The facts when the caller may read it; null when it does not exist for the caller. */
  read(q: Queryable, orgId: string, id: string, p: Principal): Promise<TargetFacts | null>;
  /**
   * The read rule for many ids at once, as SQL selecting the readable ones (`id`): $org, $principal and the ids
   * array as given. Event visibility checks a batch of events' records with it in one statement.
   */
  readableIdsSql?: (org: string, principal: string, ids: string) => string;
}

declare module './core/family.js' {
  interface Contributions {
    /** Records annotations and pins may point at, by id prefix (domain/refs.ts). */
    references: Readonly<Record<string, Reference>>;
  }
}

/** A family check's NOT_FOUND as null; every other error goes on. */
export async function orNull<T>(check: () => Promise<T>): Promise<T | null> {
  try {
    return await check();
  } catch (err) {
    if (err instanceof ApiError && err.code === 'NOT_FOUND') return null;
    throw err;
  }
}

const byPrefix = new WeakMap<FamilySet, ReadonlyMap<string, Reference>>();

/** Every deployed family's references by prefix; a prefix two families claim is refused when the set is checked. */
export function references(families: FamilySet): ReadonlyMap<string, Reference> {
  let map = byPrefix.get(families);
  if (map) return map;
  const made = new Map<string, Reference>();
  for (const { family, value } of families.contributions('references')) {
    for (const [prefix, ref] of Object.entries(value)) {
      if (made.has(prefix)) throw new Error(`references: the id prefix ${prefix} is claimed twice (again by ${family})`);
      made.set(prefix, ref);
    }
  }
  byPrefix.set(families, (map = made));
  return map;
}

const refOf = (families: FamilySet, id: string): Reference | undefined => references(families).get(id.slice(0, id.indexOf('_')));

/** How the record is read: its scope, its check, its batch rule (undefined: an id references do not know). */
export const referenceOf = (families: FamilySet, id: string): Reference | undefined => refOf(families, id);

/**
 * The record as the caller may read it: FORBIDDEN_SCOPE when the key lacks its read scope, NOT_FOUND when the
 * prefix is unknown or the record does not exist for the caller (named as `what`, default the id).
 */
export async function readTarget(families: FamilySet, q: Queryable, orgId: string, id: string, p: Principal, what = id): Promise<Target> {
  const ref = refOf(families, id);
  if (!ref) throw notFound(what);
  if (!p.scopes.has(ref.scope))
    throw new ApiError('FORBIDDEN_SCOPE', `missing scope ${ref.scope} for ${id}: its record is read with that scope, which this key does not hold`);
  const facts = await ref.read(q, orgId, id, p);
  if (!facts) throw notFound(what);
  return { id, type: ref.type, ...facts };
}

/** Whether the caller (its key's scopes included) may read the record: for lists that leave unreadable rows out. */
export async function canReadTarget(families: FamilySet, q: Queryable, orgId: string, id: string, p: Principal): Promise<boolean> {
  const ref = refOf(families, id);
  if (!ref || !p.scopes.has(ref.scope)) return false;
  return (await ref.read(q, orgId, id, p)) !== null;
}

/** A per-call memo of canReadTarget, for a page that names the same target many times. */
export function readableMemo(families: FamilySet, q: Queryable, orgId: string, p: Principal): (id: string) => Promise<boolean> {
  const seen = new Map<string, Promise<boolean>>();
  return (id) => {
    let hit = seen.get(id);
    if (!hit) seen.set(id, (hit = canReadTarget(families, q, orgId, id, p)));
    return hit;
  };
}
