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

export const ledgerReadContracts = {
  events: read({
    summary: "A page of the org's ledger in seq order, after `cursor`. Payloads are verbatim, so any client can recompute every row_hash.",
    query: z.strictObject({ cursor, limit: limit(500, 100) }),
    result: z.strictObject({
      events: z.array(LedgerEvent),
      nextCursor: z.number().int().describe('The last seq in this page (the cursor itself when the page is empty).'),
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
