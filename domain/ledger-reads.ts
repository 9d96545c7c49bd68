import { ApiError, badRequest } from '../protocol/errors.js';
import { matchKind, type KindMatch } from '../protocol/events.js';
import { ledgerReadContracts as c } from '../protocol/reads/ledger.js';
import { SCOPES } from '../protocol/scopes.js';
import type { Queryable } from '../db/types.js';
import { eventsPageJson, readEvents, readSnapshot, scanEvents, type StoredEventRow } from '../ledger/read.js';
import type { Principal } from './core/auth.js';
import { reads, type Family } from './core/family.js';
import { RawJson, readHandler } from './core/handler.js';
import type { Reference } from './refs.js';

/** Families that have a read scope of their own (`board` for board.read, ...). */
const SCOPED_FAMILIES = SCOPES.filter((s) => s.endsWith('.read')).map((s) => s.slice(0, -'.read'.length));

/**
 * Which families' events a key may not see at all, for GET /events and the live stream alike: with org.read (both
 * reads need it), every event except those of a family whose own read scope (`books.read` for `books`) the key
 * lacks. Families without a read scope of their own (approval, settings, ...) are seen with org.read. Every tier
 * holds every read scope, so only a key minted with chosen scopes ever misses a family. Within the families it
 * sees, events of access-controlled rows are then checked one by one (domain/stream/visibility.ts).
 */
export function hiddenFamilies(p: Principal): string[] {
  return SCOPED_FAMILIES.filter((f) => !p.scopes.has(`${f}.read`));
}

/** A filtered page looks at no more than this many rows, so a rare kind never costs a scan of the whole chain. */
export const EVENTS_SCAN_ROWS = 5000;
/** Rows asked for per round while events the reader may not see are left out (at most scan/this rounds a page). */
const ROUND_ROWS = 500;

/**
 * A cursor beyond the org's head: the client holds seqs this ledger does not have (a typo, another org's cursor,
 * or a database restored to an earlier point, whose next seqs will be other events). Paging on from it would
 * answer nothing forever, or later skip events the client never saw: refused, naming the head to resume from.
 */
export async function refuseBeyondHead(q: Queryable, orgId: string, field: string, after: number): Promise<void> {
  const { head } = await readSnapshot(q, orgId);
  if (after > head.seq) {
    throw new ApiError(
      'BAD_REQUEST',
      `${field}: ${after} is beyond the org's head seq ${head.seq}; resume from a seq you hold that is at most ${head.seq} (or 0), ` +
        'and if you held events above it, this ledger no longer has them (restored?): re-read from where your copy still matches its row_hash',
    );
  }
}

/** Several kinds as one match: each with the names it had or has. */
const matchKinds = (kinds: readonly string[]): KindMatch => {
  const each = kinds.map(matchKind);
  return { kinds: [...new Set(each.flatMap((m) => m.kinds))], pairs: each.flatMap((m) => m.pairs) };
};

export const events = readHandler(c.events, async (ctx, query) => {
  const view = ctx.deps.events.reader(ctx.q, ctx.principal, { cache: false });
  const hidden = hiddenFamilies(ctx.principal);
  if (query.kind !== undefined && query.kinds !== undefined) throw badRequest('kinds', 'give kind or kinds, not both');
  const wanted = query.kinds ?? (query.kind === undefined ? undefined : [query.kind]);
  const sqlFilter = Boolean(query.family || wanted || query.excludeKinds || hidden.length > 0);
  const budget = Math.max(query.limit, EVENTS_SCAN_ROWS);
  // One round: up to `hits` rows passing the SQL filter, looking at no more than `scan` rows; lastScanned as scanEvents.
  const round = async (after: number, hits: number, scan: number): Promise<{ rows: StoredEventRow[]; lastScanned: number }> => {
    if (sqlFilter)
      return scanEvents(ctx.q, ctx.orgId, after, hits, scan, {
        family: query.family,
        kind: wanted === undefined ? undefined : matchKinds(wanted),
        exclude: query.excludeKinds,
        hidden,
      });
    const rows = await readEvents(ctx.q, ctx.orgId, after, Math.min(hits, scan));
    return { rows, lastScanned: rows.length ? Number(rows[rows.length - 1].seq) : after };
  };

  if (view.seesAll) {
    const page = await round(query.cursor, query.limit, budget);
    if (page.rows.length === 0 && query.cursor > 0) await refuseBeyondHead(ctx.q, ctx.orgId, 'cursor', query.cursor);
    return new RawJson(eventsPageJson(page.rows, query.cursor, sqlFilter ? page.lastScanned : undefined));
  }

  // Events the reader may not see are left out; the page fills from the rows after them, and nextCursor moves past
  // every row looked at, so paging never stalls on (nor reveals more than the seqs of) what is hidden.
  const shown: StoredEventRow[] = [];
  let after = query.cursor;
  let nextCursor = query.cursor;
  let looked = 0;
  for (;;) {
    const want = query.limit - shown.length;
    const hits = Math.max(want, Math.min(ROUND_ROWS, budget - looked));
    const page = await round(after, hits, budget - looked);
    looked += page.lastScanned - after;
    const visible = await view.visible(page.rows);
    if (visible.length >= want) {
      shown.push(...visible.slice(0, want));
      nextCursor = Number(shown[shown.length - 1].seq);
      break;
    }
    shown.push(...visible);
    after = nextCursor = page.lastScanned;
    if (page.rows.length < hits || looked >= budget) break;
  }
  if (nextCursor === query.cursor && query.cursor > 0) await refuseBeyondHead(ctx.q, ctx.orgId, 'cursor', query.cursor);
  return new RawJson(eventsPageJson(shown, query.cursor, nextCursor));
});

export const snapshot = readHandler(c.snapshot, async (ctx) => readSnapshot(ctx.q, ctx.orgId));

export const ledgerReads = reads({ events, snapshot });

/** `evt_<seq>`: a decimal seq without leading zeros, small enough to stay exact. */
const EVENT_ID = /^evt_([1-9][0-9]{0,14})$/;

/** An event (evt_<seq>) as annotations and pins point at it: seen as GET /events shows it; admins moderate threads on it. */
const eventReference: Reference = {
  type: 'event',
  scope: 'org.read',
  read: async (q, orgId, id, p) => {
    const m = EVENT_ID.exec(id);
    if (!m) return null;
    const seq = Number(m[1]);
    const [row] = await readEvents(q, orgId, seq - 1, 1);
    // An event of a family the key cannot see is hidden, as GET /events hides it. Nobody edits the ledger.
    if (!row || Number(row.seq) !== seq || hiddenFamilies(p).includes(row.family)) return null;
    return { editor: p.scopes.has('admin') };
  },
};

/** GET /events and the ledger's other reads, deployed like a family's (domain/deployed.ts lists it). */
export const ledgerReadsFamily: Family = { name: 'ledger', reads: ledgerReads, contributes: { references: { evt: eventReference } } };
