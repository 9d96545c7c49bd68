import { ledgerReadContracts as c } from '../protocol/reads/ledger.js';
import { eventsPageJson, readEvents, readSnapshot } from '../ledger/read.js';
import { reads } from './family.js';
import { RawJson, readHandler } from './handler.js';

export const events = readHandler(c.events, async (ctx, query) => {
  const rows = await readEvents(ctx.q, ctx.orgId, query.cursor, query.limit);
  return new RawJson(eventsPageJson(rows, query.cursor));
});

export const snapshot = readHandler(c.snapshot, async (ctx) => readSnapshot(ctx.q, ctx.orgId));

export const ledgerReads = reads({ events, snapshot });
