import { ApiError, notFound } from '../protocol/errors.js';
import type { TARGET_TYPES } from '../protocol/methods/annotation.js';
import type { Queryable } from '../db/types.js';
import { readEvents } from '../ledger/read.js';
import type { Principal } from './auth.js';
import { taskHolding } from './board/people.js';
import { findWorkstream } from './board/model.js';
import { callAccess } from './calling/model.js';
import { channelAccess, managesChannel } from './channel/access.js';
import { decisionHolding } from './decision/driver.js';
import { callerOf, fileAccess, roleRank, type FileAccess } from './files/access.js';
import { hiddenFamilies } from './ledger-reads.js';
import { messageAccess } from './messaging/model.js';
import { findTeams } from './team/find.js';

/*
 * References (files.md section 4): what an id prefix names, the key scope reading it needs, and its family's own
 * read check, so that no pin or annotation leaks its target. Each check is the owning family's exported function;
 * nothing here reads another family's tables. A target the caller cannot read (another org's, unknown, private,
 * an event of a family its key cannot see) is NOT_FOUND, never FORBIDDEN; a key without the target's read scope is
 * FORBIDDEN_SCOPE naming it (it says nothing about the record).
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

type Facts = Omit<Target, 'id' | 'type'>;

interface Ref {
  type: TargetType;
  /** The key scope reading this kind of record needs. */
  scope: string;
  /** The facts when the caller may read it; null when it does not exist for the caller. */
  read(q: Queryable, orgId: string, id: string, p: Principal): Promise<Facts | null>;
}

/** A family check's NOT_FOUND as null; every other error goes on. */
async function orNull<T>(check: () => Promise<T>): Promise<T | null> {
  try {
    return await check();
  } catch (err) {
    if (err instanceof ApiError && err.code === 'NOT_FOUND') return null;
    throw err;
  }
}

/** `evt_<seq>`: a decimal seq without leading zeros, small enough to stay exact. */
const EVENT_ID = /^evt_([1-9][0-9]{0,14})$/;

const REFS: Readonly<Record<string, Ref>> = {
  fil: {
    type: 'file',
    scope: 'files.read',
    read: async (q, orgId, id, p) => {
      const file = await orNull(() => fileAccess(q, orgId, id, callerOf(p), 'viewer'));
      return file && { file, editor: roleRank(file.role) >= roleRank('editor') };
    },
  },
  task: {
    type: 'task',
    scope: 'board.read',
    read: async (q, orgId, id, p) => ((await taskHolding(q, orgId, id)) ? { editor: p.scopes.has('board.write') } : null),
  },
  ws: {
    type: 'workstream',
    scope: 'board.read',
    read: async (q, orgId, id, p) => ((await findWorkstream(q, orgId, id)) ? { editor: p.scopes.has('board.write') } : null),
  },
  evt: {
    type: 'event',
    scope: 'org.read',
    read: async (q, orgId, id, p) => {
      const m = EVENT_ID.exec(id);
      if (!m) return null;
      const seq = Number(m[1]);
      const [row] = await readEvents(q, orgId, seq - 1, 1);
      // An event of a family the key cannot see is hidden, as GET /events hides it. Nobody edits the ledger;
      // admins moderate threads on it.
      if (!row || Number(row.seq) !== seq || hiddenFamilies(p).includes(row.family)) return null;
      return { editor: p.scopes.has('admin') };
    },
  },
  msg: {
    type: 'message',
    scope: 'messaging.read',
    read: async (q, orgId, id, p) => {
      const found = await orNull(() => messageAccess(q, orgId, id, p.id, 'read'));
      return found && { editor: found.message.author_id === p.id || managesChannel(found.access.role) };
    },
  },
  ch: {
    type: 'channel',
    scope: 'messaging.read',
    read: async (q, orgId, id, p) => {
      const found = await orNull(() => channelAccess(q, orgId, id, p.id, 'read'));
      return found && { editor: managesChannel(found.role) };
    },
  },
  dec: {
    type: 'decision',
    scope: 'org.read',
    read: async (q, orgId, id, p) => {
      const d = await decisionHolding(q, orgId, id);
      return d ? { editor: d.driver === p.id || p.scopes.has('admin') } : null;
    },
  },
  team: {
    type: 'team',
    scope: 'org.read',
    read: async (q, orgId, id, p) => ((await findTeams(q, orgId, { ids: [id], offset: 0, limit: 1 })).teams.length ? { editor: p.scopes.has('org.write') } : null),
  },
  call: {
    type: 'call',
    scope: 'org.read',
    read: async (q, orgId, id, p) => {
      const found = await orNull(() => callAccess(q, orgId, id, p.id));
      return found && { editor: found.call.host_id === p.id };
    },
  },
};

const refOf = (id: string): Ref | undefined => {
  const prefix = id.slice(0, id.indexOf('_'));
  return Object.hasOwn(REFS, prefix) ? REFS[prefix] : undefined;
};

/** The kind of record an id names, when references know it. */
export const targetTypeOf = (id: string): TargetType | undefined => refOf(id)?.type;

/** The key scope reading the record needs (undefined: an id references do not know). */
export const readScopeOf = (id: string): string | undefined => refOf(id)?.scope;

/**
 * The record as the caller may read it: FORBIDDEN_SCOPE when the key lacks its read scope, NOT_FOUND when the
 * prefix is unknown or the record does not exist for the caller (named as `what`, default the id).
 */
export async function readTarget(q: Queryable, orgId: string, id: string, p: Principal, what = id): Promise<Target> {
  const ref = refOf(id);
  if (!ref) throw notFound(what);
  if (!p.scopes.has(ref.scope)) throw new ApiError('FORBIDDEN_SCOPE', `${id} is read with scope ${ref.scope}, which this key does not hold`);
  const facts = await ref.read(q, orgId, id, p);
  if (!facts) throw notFound(what);
  return { id, type: ref.type, ...facts };
}

/** Whether the caller (its key's scopes included) may read the record: for lists that leave unreadable rows out. */
export async function canReadTarget(q: Queryable, orgId: string, id: string, p: Principal): Promise<boolean> {
  const ref = refOf(id);
  if (!ref || !p.scopes.has(ref.scope)) return false;
  return (await ref.read(q, orgId, id, p)) !== null;
}

/** A per-call memo of canReadTarget, for a page that names the same target many times. */
export function readableMemo(q: Queryable, orgId: string, p: Principal): (id: string) => Promise<boolean> {
  const seen = new Map<string, Promise<boolean>>();
  return (id) => {
    let hit = seen.get(id);
    if (!hit) seen.set(id, (hit = canReadTarget(q, orgId, id, p)));
    return hit;
  };
}
