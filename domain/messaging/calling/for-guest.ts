import type { Queryable } from '../../../db/types.js';
import { callAccess, iso } from './model.js';

/*
 * Calls as another family shows them to an outside guest (crm's deal rooms): admitting a guest is checked as the
 * member admitting (NOT_FOUND unless they may read the call), and the guest's own view reads only the calls it
 * was admitted to, by id. Nothing is written and no event appended: the calling family's one event stays its own.
 */

export interface GuestCall {
  callId: string;
  title: string | null;
  status: 'live' | 'ended';
  startedAt: string;
  endedAt: string | null;
}

const toGuestCall = (r: {
  call_id: string;
  title: string | null;
  status: 'live' | 'ended';
  started_at: string | Date;
  ended_at: string | Date | null;
}): GuestCall => ({
  callId: r.call_id,
  title: r.title,
  status: r.status,
  startedAt: iso(r.started_at),
  endedAt: r.ended_at === null ? null : iso(r.ended_at),
});

/** A call `principalId` may read (calling.getDetails' rule), as a guest would see it; NOT_FOUND otherwise. */
export async function callForGuest(q: Queryable, orgId: string, callId: string, principalId: string): Promise<GuestCall> {
  const { call } = await callAccess(q, orgId, callId, principalId);
  return toGuestCall(call);
}

/** Calls by id (those that exist, in start order): what a guest admitted to them sees. */
export async function guestCalls(q: Queryable, orgId: string, callIds: readonly string[]): Promise<GuestCall[]> {
  if (callIds.length === 0) return [];
  const rows = await q.query<{ call_id: string; title: string | null; status: 'live' | 'ended'; started_at: string | Date; ended_at: string | Date | null }>(
    `SELECT call_id, title, status, started_at, ended_at FROM calls WHERE org_id = $1 AND call_id = ANY($2::text[]) ORDER BY started_at, call_id`,
    [orgId, callIds],
  );
  return rows.map(toGuestCall);
}
