import type { z } from 'zod';
import type { Presence } from '../../../protocol/methods/runtime/presence.js';
import type { Queryable } from '../../../db/types.js';

/*
 * Presence as readers see it: an unexpired beat says what it says; past it, an agent is available while one of its
 * registrations is passing or warning (its runtime is up), and anyone else is offline.
 */

export type PresenceOut = z.output<typeof Presence>;

export interface BeatRow {
  principal_id: string;
  status: 'available' | 'busy' | 'away' | 'dnd';
  task_id: string | null;
  status_text: string | null;
  expires_at: string | Date;
  beat_at: string | Date;
}

const iso = (t: string | Date) => new Date(t).toISOString();

export const beatPresence = (r: BeatRow): PresenceOut => ({
  principalId: r.principal_id,
  status: r.status,
  source: 'beat',
  taskId: r.task_id,
  statusText: r.status_text,
  expiresAt: iso(r.expires_at),
  updatedAt: iso(r.beat_at),
});

/** The presence of these principals now, in their order. */
export async function presenceOf(q: Queryable, orgId: string, principalIds: readonly string[]): Promise<PresenceOut[]> {
  if (principalIds.length === 0) return [];
  const rows = await q.query<Partial<BeatRow> & { id: string; live: boolean | null; healthy: boolean }>(
    `SELECT ids.id, b.principal_id, b.status, b.task_id, b.status_text, b.expires_at, b.beat_at, b.expires_at > clock_timestamp() AS live,
            EXISTS (SELECT 1 FROM agent_health h WHERE h.org_id = $1 AND h.principal_id = ids.id AND h.status IN ('passing', 'warning')) AS healthy
       FROM unnest($2::text[]) AS ids(id)
       LEFT JOIN presence_beats b ON b.org_id = $1 AND b.principal_id = ids.id`,
    [orgId, principalIds],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return principalIds.map((id) => {
    const r = byId.get(id)!;
    if (r.live) return beatPresence(r as BeatRow);
    const last = r.beat_at ? iso(r.beat_at) : null;
    if (r.healthy) return { principalId: id, status: 'available', source: 'registration', taskId: null, statusText: null, expiresAt: null, updatedAt: last };
    return {
      principalId: id,
      status: 'offline',
      source: 'none',
      taskId: null,
      statusText: null,
      expiresAt: r.expires_at ? iso(r.expires_at) : null,
      updatedAt: last,
    };
  });
}
