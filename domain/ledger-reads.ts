import { ledgerReadContracts as c } from '../protocol/reads/ledger.js';
import { SCOPES } from '../protocol/scopes.js';
import { eventsPageJson, readEvents, readSnapshot, scanEvents } from '../ledger/read.js';
import type { Principal } from './auth.js';
import { reads } from './family.js';
import { RawJson, readHandler } from './handler.js';

/** Families that have a read scope of their own (`board` for board.read, ...). */
const SCOPED_FAMILIES = SCOPES.filter((s) => s.endsWith('.read')).map((s) => s.slice(0, -'.read'.length));

/**
 * Which events a key may see, for GET /events and the live stream alike: with org.read (both reads need it),
 * every event except those of a family whose own read scope (`books.read` for `books`) the key lacks. Families
 * without a read scope of their own (approval, settings, ...) are seen with org.read. Every tier holds every
 * read scope, so only a key minted with chosen scopes ever misses anything.
 */
export function hiddenFamilies(p: Principal): string[] {
  return SCOPED_FAMILIES.filter((f) => !p.scopes.has(`${f}.read`));
}

/** A filtered page looks at no more than this many rows, so a rare kind never costs a scan of the whole chain. */
export const EVENTS_SCAN_ROWS = 5000;

export const events = readHandler(c.events, async (ctx, query) => {
  const hidden = hiddenFamilies(ctx.principal);
  if (!query.family && !query.kind && hidden.length === 0) {
    const rows = await readEvents(ctx.q, ctx.orgId, query.cursor, query.limit);
    return new RawJson(eventsPageJson(rows, query.cursor));
  }
  const page = await scanEvents(ctx.q, ctx.orgId, query.cursor, query.limit, Math.max(query.limit, EVENTS_SCAN_ROWS), {
    family: query.family,
    kind: query.kind,
    hidden,
  });
  return new RawJson(eventsPageJson(page.rows, query.cursor, page.lastScanned));
});

export const snapshot = readHandler(c.snapshot, async (ctx) => readSnapshot(ctx.q, ctx.orgId));

export const ledgerReads = reads({ events, snapshot });
