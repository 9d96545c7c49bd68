import type { Queryable } from '../db/types.js';
import { readEventsAt, type StoredEventRow } from '../ledger/read.js';
import type { Principal } from './core/auth.js';
import { referenceOf } from './refs.js';
import type { EventAccess, EventVisibility, FamilyReader } from './stream/visibility.js';

/*
 * Event visibility by the records an event names (domain/stream/visibility.ts): an event of an access-controlled
 * family is seen by a reader who may read every record it names (its channel, message, call, file, annotation
 * target or pin place), by its actor, and by the principal it is about (`principalId`: added to or removed from a
 * channel or a call). The records' checks are their families' own read rules in batch form (one statement for
 * every id of a batch); a stream's reader caches answers until an event that may change access comes by.
 */

type Payload = Record<string, unknown>;

const prefixOf = (id: string) => id.slice(0, Math.max(0, id.indexOf('_')));
const EVENT_ID = /^evt_([1-9][0-9]{0,14})$/;

/**
 * Which of `ids` the principal may read, in one statement for the kinds whose reference gives a batch rule
 * (channels, messages, calls, files: their families' read rules for many ids at once), one read of the ledger for events (`evt_<seq>`, seen as the events read shows them), and the key's
 * scope for records read org-wide (tasks, workstreams, decisions, teams). `org` (a pin's place) is always readable.
 */
export async function readableRecords(q: Queryable, p: Principal, ids: readonly string[], events: EventAccess): Promise<Set<string>> {
  const out = new Set<string>();
  const byPrefix = new Map<string, string[]>();
  for (const id of new Set(ids)) {
    if (id === 'org') {
      out.add(id);
      continue;
    }
    const prefix = prefixOf(id);
    const ref = referenceOf(events.families, id);
    if (ref === undefined || !p.scopes.has(ref.scope)) continue;
    if (ref.readableIdsSql || prefix === 'evt') {
      let list = byPrefix.get(prefix);
      if (!list) byPrefix.set(prefix, (list = []));
      list.push(id);
    } else out.add(id);
  }
  const parts: string[] = [];
  const params: unknown[] = [p.orgId, p.id];
  for (const [prefix, list] of byPrefix) {
    if (prefix === 'evt') continue;
    params.push(list);
    const batch = referenceOf(events.families, list[0])!.readableIdsSql!;
    parts.push(batch('$1', '$2', `$${params.length}::text[]`));
  }
  if (parts.length > 0) for (const r of await q.query<{ id: string }>(parts.join('\nUNION ALL\n'), params)) out.add(r.id);
  const evts = byPrefix.get('evt');
  if (evts) {
    const seqs = evts.map((id) => Number(EVENT_ID.exec(id)?.[1] ?? NaN)).filter((n) => Number.isSafeInteger(n));
    const rows = await readEventsAt(q, p.orgId, seqs);
    for (const e of await events.reader(q, p, { cache: false }).visible(rows)) out.add(`evt_${Number(e.seq)}`);
  }
  return out;
}

/** Events after which a cached answer may be wrong: membership, sharing, teams, moves, a message posted at last. */
const CHANGES_ACCESS =
  /^(channel\.(channel|conversation|dm|member)\.|calling\.(participant|call)\.|files\.(share\.|file\.moved)|team\.|member\.|user\.|admin\.|messaging\.message\.(delivered|failed|deleted))/;
export const mayChangeAccess = (e: Pick<StoredEventRow, 'kind'>): boolean => CHANGES_ACCESS.test(e.kind);

export interface RecordRule {
  /** The records the event names: the reader must read every one. None found: only its actor and subject see it. */
  records(e: StoredEventRow, payload: Payload): readonly unknown[];
  /** Events that are their actor's (or the payload's `authorId`'s) alone: a scheduled message before it posts. */
  ownOnly?(e: StoredEventRow, payload: Payload): boolean;
}

const parse = (e: StoredEventRow): Payload => {
  const v: unknown = typeof e.payload === 'string' ? JSON.parse(e.payload) : e.payload;
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Payload) : {};
};

/** A family's EventVisibility from the records its events name. */
export function recordVisibility(rule: RecordRule): EventVisibility {
  return (ctx): FamilyReader => {
    const me = ctx.principal.id;
    const known = new Map<string, boolean>();
    return {
      saw(batch) {
        if (known.size > 0 && batch.some(mayChangeAccess)) known.clear();
      },
      async visible(events) {
        const plan = events.map((e) => {
          const payload = parse(e);
          const mine = e.actor === me || payload.principalId === me || payload.authorId === me;
          if (rule.ownOnly?.(e, payload)) return { e, mine, ids: null };
          const ids = rule.records(e, payload).filter((id): id is string => typeof id === 'string' && id !== '');
          return { e, mine, ids: ids.length > 0 ? ids : null };
        });
        const ask = [...new Set(plan.flatMap((x) => (x.mine || !x.ids ? [] : x.ids.filter((id) => !known.has(id)))))];
        if (ask.length > 0) {
          const readable = await readableRecords(ctx.q, ctx.principal, ask, ctx.events);
          for (const id of ask) known.set(id, readable.has(id));
        }
        const shown = new Set<number>();
        for (const x of plan) if (x.mine || (x.ids && x.ids.every((id) => known.get(id) === true))) shown.add(Number(x.e.seq));
        if (!ctx.cache) known.clear();
        return shown;
      },
    };
  };
}
