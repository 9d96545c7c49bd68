import { z } from 'zod';
import type { Queryable } from '../db/types.js';
import type { ReadTool } from './types.js';

/** The org's recent ledger activity, a read any answerer may offer (GET /events as a tool). */
export const LEDGER_EVENTS_TOOL = 'ledger.events';
/** GET /events needs org.read; its tool form does too. */
export const LEDGER_EVENTS_SCOPE = 'org.read';

/** Params of the `ledger.events` tool: the org's recent ledger activity, newest first. */
export const LedgerEventsParams = z.strictObject({
  limit: z
    .number({ message: 'must be an integer' })
    .int('must be an integer')
    .min(1, 'must be >= 1')
    .max(100, 'must be at most 100')
    .default(20)
    .describe('How many events, 1 to 100 (default 20).'),
  beforeSeq: z
    .number({ message: 'must be an integer' })
    .int('must be an integer')
    .min(1, 'must be >= 1')
    .describe('Only events before this seq (the nextBeforeSeq of the previous page); omit for the latest.')
    .optional(),
  family: z.string().max(40, 'must be at most 40 characters').describe('Only this family, e.g. books.').optional(),
  kind: z.string().max(80, 'must be at most 80 characters').describe('Only this kind, e.g. books.invoice.send.').optional(),
  entityId: z.string().max(64, 'must be at most 64 characters').describe('Only events about this row, e.g. an inv_… or bill_… id.').optional(),
});
export type LedgerEventsParams = z.output<typeof LedgerEventsParams>;

export interface LedgerEventView {
  seq: number;
  family: string;
  kind: string;
  entityId: string;
  actor: string;
  at: string;
  payload: unknown;
}

export const LEDGER_EVENTS_DESCRIPTION =
  'Recent ledger activity of the org, newest first: every event with its seq, kind (books.invoice.send, books.bill.approve, books.signature.hold, …), the row it is about (entityId), who caused it, when, and its payload. Filter by family, kind or entityId; page back with beforeSeq. Cite an event by its seq.';

export const LEDGER_EVENTS_READ: ReadTool = { name: LEDGER_EVENTS_TOOL, description: LEDGER_EVENTS_DESCRIPTION, params: LedgerEventsParams };

/** The org's events, newest first, filtered; the scope check is the caller's (org.read, as for GET /events). */
export async function recentEvents(q: Queryable, orgId: string, p: LedgerEventsParams): Promise<{ events: LedgerEventView[]; nextBeforeSeq: number | null }> {
  const args: unknown[] = [orgId];
  const where = ['org_id = $1'];
  const add = (sql: string, value: unknown) => {
    args.push(value);
    where.push(sql.replace('?', `$${args.length}`));
  };
  if (p.beforeSeq !== undefined) add('seq < ?', p.beforeSeq);
  if (p.family !== undefined) add('family = ?', p.family);
  if (p.kind !== undefined) add('kind = ?', p.kind);
  if (p.entityId !== undefined) add('entity_id = ?', p.entityId);
  args.push(p.limit);
  const rows = await q.query<{ seq: number; family: string; kind: string; entity_id: string; actor: string; at: string; payload: string }>(
    `SELECT seq, family, kind, entity_id, actor, at, payload FROM events WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT $${args.length}`,
    args,
  );
  const events = rows.map((r) => ({
    seq: Number(r.seq),
    family: r.family,
    kind: r.kind,
    entityId: r.entity_id,
    actor: r.actor,
    at: r.at,
    payload: JSON.parse(r.payload) as unknown,
  }));
  const last = events[events.length - 1];
  return { events, nextBeforeSeq: events.length === p.limit && last && last.seq > 1 ? last.seq : null };
}
