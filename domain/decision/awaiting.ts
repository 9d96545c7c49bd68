import type { Queryable } from '../../db/types.js';
import type { Principal } from '../auth.js';
import { findRight, readRights, selects, selectsAny, standing, type ResolvedRight } from '../governance/rights.js';

/*
 * awaiting=me: the open decisions waiting on the caller. Either its signature: agree names it, it has not signed the
 * current version and a selector naming it is still unmet; or its decision: every agree signature is in, no
 * adjustment request is open, and it decides the area (by the rights, not by admin override; an agent never its
 * own proposal). Open decisions are found by the partial index, grouped by area so each right is resolved once.
 */

interface OpenRow {
  decision_id: string;
  number: number;
  area: string;
  driver: string;
  version: number;
}

/** Most open decisions examined; an org with more sees the newest. */
const MAX_OPEN = 5000;

export async function awaitingIds(q: Queryable, orgId: string, me: Principal): Promise<string[]> {
  const { rights } = await readRights(q, orgId, 'none');
  const open = await q.query<OpenRow>(
    `SELECT decision_id, number, area, driver, version FROM decisions
      WHERE org_id = $1 AND status IN ('proposed', 'adjustment_requested') ORDER BY number DESC LIMIT ${MAX_OPEN}`,
    [orgId],
  );
  if (open.length === 0) return [];
  const byArea = new Map<string, ResolvedRight>();
  for (const area of new Set(open.map((r) => r.area))) byArea.set(area, findRight(rights, { kind: 'decision', key: area }));
  const resolvedOf = (r: OpenRow): ResolvedRight => ({ ...byArea.get(r.area)!, act: { kind: 'decision', key: r.area, owner: r.driver } });
  // Only where a selector names the caller (as signatory or decider) can anything wait on it.
  const candidates: OpenRow[] = [];
  for (const r of open) {
    const { right } = resolvedOf(r);
    if ((await selectsAny(q, orgId, right.agree, me, r.driver)) || (await selects(q, orgId, right.decidedBy, me, r.driver))) candidates.push(r);
  }
  if (candidates.length === 0) return [];
  const ids = candidates.map((r) => r.decision_id);
  const sigs = await q.query<{ decision_id: string; signer: string; signer_kind: 'human' | 'agent' }>(
    `SELECT s.decision_id, s.signer, s.signer_kind FROM decision_signatures s
       JOIN decisions d ON d.org_id = s.org_id AND d.decision_id = s.decision_id AND d.version = s.version
      WHERE s.org_id = $1 AND s.decision_id = ANY($2::text[])`,
    [orgId, ids],
  );
  const blocked = new Set(
    (
      await q.query<{ decision_id: string }>(
        `SELECT DISTINCT c.decision_id FROM decision_comments c
           JOIN decisions d ON d.org_id = c.org_id AND d.decision_id = c.decision_id AND d.version = c.version
          WHERE c.org_id = $1 AND c.decision_id = ANY($2::text[]) AND c.kind = 'adjustment' AND c.resolved_at IS NULL`,
        [orgId, ids],
      )
    ).map((r) => r.decision_id),
  );
  const signedBy = new Map<string, { id: string; kind: 'human' | 'agent' }[]>();
  for (const s of sigs) {
    const list = signedBy.get(s.decision_id) ?? [];
    list.push({ id: s.signer, kind: s.signer_kind });
    signedBy.set(s.decision_id, list);
  }

  const out: string[] = [];
  for (const r of candidates) {
    const resolved = resolvedOf(r);
    const signed = signedBy.get(r.decision_id) ?? [];
    let unmet = 0;
    let mine = false;
    for (const selector of resolved.right.agree ?? []) {
      let met = false;
      for (const s of signed) if (await selects(q, orgId, selector, s, r.driver)) met = true;
      if (met) continue;
      unmet++;
      if (await selects(q, orgId, selector, me, r.driver)) mine = true;
    }
    if (mine && !signed.some((s) => s.id === me.id)) {
      out.push(r.decision_id);
      continue;
    }
    if (unmet > 0 || blocked.has(r.decision_id)) continue;
    if (me.kind === 'agent' && r.driver === me.id) continue;
    const st = await standing(q, orgId, me, resolved);
    if (st.satisfies && !st.override) out.push(r.decision_id);
  }
  return out;
}
