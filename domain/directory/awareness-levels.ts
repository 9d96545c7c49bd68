import { directory as c } from '../../protocol/methods/directory/index.js';
import { one, type Queryable } from '../../db/types.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { requireNamableMember } from '../people/index.js';
import { AWARENESS_LEVELS, type AwarenessLevel } from './awareness.js';
import { lockKeys } from './channel-store.js';
import { resolveParty } from './model.js';

/*
 * directory.setAwareness, and raising a level when an introduction or briefing is done. A declared level (none
 * included) is what a person said; touchAwareness (awareness.ts) never overrides it. One writer per (party, member).
 */

export interface AwarenessRow {
  awareness_id: string;
  party_id: string;
  principal_id: string;
  level: AwarenessLevel | null;
  level_source: 'declared' | 'derived' | null;
  last_interaction_at: string | null;
  interactions: number;
  updated_at: string;
}

const COLUMNS = 'awareness_id, party_id, principal_id, level, level_source, last_interaction_at, interactions, updated_at';

export const toAwareness = (r: AwarenessRow) => ({
  id: r.awareness_id,
  partyId: r.party_id,
  principalId: r.principal_id,
  level: r.level,
  source: r.level_source,
  lastInteractionAt: r.last_interaction_at ? new Date(r.last_interaction_at).toISOString() : null,
  interactions: Number(r.interactions),
  updatedAt: new Date(r.updated_at).toISOString(),
});

const rank = (level: AwarenessLevel | null) => (level === null ? -1 : AWARENESS_LEVELS.indexOf(level));

/** The (party, member) row, after taking the pair's lock (so the insert below cannot race another). */
async function lockedPair(q: Queryable, orgId: string, partyId: string, principalId: string): Promise<AwarenessRow | undefined> {
  await lockKeys(q, orgId, [`awareness:${partyId}:${principalId}`]);
  const [row] = await q.query<AwarenessRow>(`SELECT ${COLUMNS} FROM directory_awareness WHERE org_id = $1 AND party_id = $2 AND principal_id = $3`, [
    orgId,
    partyId,
    principalId,
  ]);
  return row;
}

async function writeLevel(
  q: Queryable,
  orgId: string,
  row: AwarenessRow | undefined,
  partyId: string,
  principalId: string,
  level: AwarenessLevel | null,
  source: 'declared' | 'derived',
) {
  if (row) {
    const updated = one(
      await q.query<AwarenessRow>(
        `UPDATE directory_awareness SET level = $3, level_source = $4, updated_at = now() WHERE org_id = $1 AND awareness_id = $2 RETURNING ${COLUMNS}`,
        [orgId, row.awareness_id, level, source],
      ),
    );
    return updated;
  }
  const inserted = one(
    await q.query<AwarenessRow>(
      // touchAwareness takes no lock: a row it inserted meanwhile is updated instead.
      `INSERT INTO directory_awareness (org_id, awareness_id, party_id, principal_id, level, level_source) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (org_id, party_id, principal_id) DO UPDATE SET level = excluded.level, level_source = excluded.level_source, updated_at = now()
     RETURNING ${COLUMNS}`,
      [orgId, newId('awr'), partyId, principalId, level, source],
    ),
  );
  return inserted;
}

/**
 * Lift a member's level of a party to at least `level` (a done introduction or briefing); a declared row stays
 * declared. Returns the row when it changed.
 */
export async function raiseAwareness(q: Queryable, orgId: string, partyId: string, principalId: string, level: AwarenessLevel): Promise<AwarenessRow | null> {
  const row = await lockedPair(q, orgId, partyId, principalId);
  if (row && rank(row.level) >= rank(level)) return null;
  return writeLevel(q, orgId, row, partyId, principalId, level, row?.level_source === 'declared' ? 'declared' : 'derived');
}

export const setAwareness = handler(c.setAwareness, async (ctx, p) => {
  const party = await resolveParty(ctx.q, ctx.orgId, p.partyId);
  const principalId = p.principalId ?? ctx.principal.id;
  if (principalId !== ctx.principal.id) await requireNamableMember(ctx.q, ctx.orgId, principalId, 'principalId');
  const level = p.level === 'none' ? null : p.level;
  const row = await lockedPair(ctx.q, ctx.orgId, party.partyId, principalId);
  const base = {
    partyId: party.partyId,
    principalId,
    level,
    previousLevel: row?.level ?? null,
    ...(party.mergedFrom ? { followedFrom: party.mergedFrom } : {}),
  };
  // A cleared level is always a declared one (touches only ever set knows_of), so equal levels are the same state.
  if (row && row.level === level) {
    await ctx.emit('directory.awareness.set', row.awareness_id, { awarenessId: row.awareness_id, ...base, noop: true });
    return { awareness: toAwareness(row), changed: false };
  }
  const written = await writeLevel(ctx.q, ctx.orgId, row, party.partyId, principalId, level, 'declared');
  await ctx.emit('directory.awareness.set', written.awareness_id, { awarenessId: written.awareness_id, ...base });
  return { awareness: toAwareness(written), changed: true };
});
