import { z } from 'zod';
import { read } from '../contract.js';
import { cursor, limit } from '../schema.js';

export const LedgerEvent = z.strictObject({
  seq: z.number().int().describe('Per-org sequence number, from 1.'),
  family: z.string(),
  kind: z.string().describe('e.g. `item.created`, `books.bill.approve`, `books.signature.hold`.'),
  entity_id: z.string().describe('The row the event is about; empty when none.'),
  actor: z.string().describe('The causing principal (usr_…/agt_…); empty for the system.'),
  at: z.string().describe('ISO 8601 UTC with milliseconds, exactly as hashed.'),
  payload: z.unknown().describe('Redaction-safe event data, exactly as hashed.'),
  prev_hash: z.string().describe('row_hash of the previous event; empty for the first.'),
  row_hash: z.string().describe('SHA-256 hex of the canonical JSON of {prev, seq, family, kind, entity_id, actor, at, payload}.'),
});

/** An event family or kind as a filter: what the ledger's family and kind columns hold. */
const family = z.string().regex(/^[a-z][a-z0-9_]{0,49}$/, 'must be a family name such as board or approval');
const kind = z
  .string()
  .regex(/^[a-z][a-zA-Z0-9_]*(\.[a-zA-Z0-9_]+){0,5}$/, 'must be an event kind such as approval.request.approve')
  .max(100);

/** Up to 20 kinds, comma-separated. */
const kindList = z
  .string()
  .max(1000)
  .transform((s) => s.split(','))
  .pipe(z.array(kind).min(1).max(20, 'must be at most 20 kinds'));

export const ledgerReadContracts = {
  events: read({
    summary:
      "A page of the org's ledger in seq order, after `cursor`. Payloads are verbatim, so any client can recompute every row_hash. " +
      "Optional `family` and `kind` (or `kinds`, a list) keep only those events, `excludeKinds` leaves kinds out; a key without a family's read scope (books.read for books) does not see that family, " +
      'and events of rows it may not read (a private channel it is not in, a restricted file, a call) are left out (a human admin key sees all). ' +
      'A cursor beyond the head is BAD_REQUEST naming the head. ' +
      'Filtered, a page may hold fewer than `limit` events before the end: page on with nextCursor until it stops moving.',
    query: z.strictObject({
      cursor,
      limit: limit(500, 100),
      family: family.optional().describe('Only events of this family (e.g. `approval`).'),
      kind: kind
        .optional()
        .describe(
          'Only events of this kind (e.g. `approval.request.approve`), including those appended under a name it had before (`approval.approved`); either name finds both.',
        ),
      kinds: kindList.optional().describe('Only events of these kinds, comma-separated (e.g. `lease.lock.claim,lease.lock.release`); not with kind.'),
      excludeKinds: kindList
        .optional()
        .describe('Leave out events of these kinds, comma-separated (e.g. `registry.agent.heartbeat,presence.status.beat`: beats come by the thousand a day).'),
    }),
    result: z.strictObject({
      events: z.array(LedgerEvent),
      nextCursor: z.number().int().describe('The last seq scanned: the cursor of the next page (the cursor itself when nothing is left).'),
    }),
    example: { cursor: 0, limit: 100 },
  }),
  snapshot: read({
    summary: 'The chain head: poll it to detect change cheaply.',
    query: z.strictObject({}),
    result: z.strictObject({ orgId: z.string(), head: z.strictObject({ seq: z.number().int(), rowHash: z.string() }) }),
    example: {},
  }),
};
