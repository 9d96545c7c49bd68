import type { Queryable } from '../../db/types.js';
import type { Principal } from '../auth.js';
import { rolesOf } from '../governance/colleagues.js';
import { findRight, readRights, selects, standing, type ResolvedRight, type Standing, type Who } from '../governance/rights.js';
import { parseSelector } from '../governance/selectors.js';

/*
 * awaiting=me: the open decisions waiting on the caller. Either its signature: agree names it, it has not signed the
 * current version and a selector naming it is still unmet; or its decision: every agree signature is in, no
 * adjustment request is open, and it decides the area (by the rights, not by admin override; an agent never its
 * own proposal). Open decisions are found by the partial index, grouped by area so each right is resolved once.
 * Charter roles are read once per principal and standings once per right (not once per decision: an org has far
 * fewer signers and rights than open decisions); signatures and adjustment requests of the current versions are
 * read through their (decision, version) keys.
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

/** selects() for one request, each principal's charter roles read at most once. */
function selectsOnce(q: Queryable, orgId: string) {
  const roles = new Map<string, Promise<string[]>>();
  return async (selector: string, who: Who, owner?: string | null): Promise<boolean> => {
    const s = parseSelector(selector, 'party');
    if ('error' in s || s.kind !== 'role') return selects(q, orgId, selector, who, owner);
    let held = roles.get(who.id);
    if (!held) roles.set(who.id, (held = rolesOf(q, orgId, who.id)));
    return (await held).includes(s.slug);
  };
}

export async function awaitingIds(q: Queryable, orgId: string, me: Principal): Promise<string[]> {
  const sel = selectsOnce(q, orgId);
  const selAny = async (selectors: readonly string[] | undefined, who: Who, owner: string) => {
    for (const s of selectors ?? []) if (await sel(s, who, owner)) return true;
    return false;
  };
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
    if ((await selAny(right.agree, me, r.driver)) || (await sel(right.decidedBy, me, r.driver))) candidates.push(r);
  }
  if (candidates.length === 0) return [];
  // Each (decision, current version) probes the signatures' unique key and the comments' index: a few hundred
  // lookups, where `decision_id = ANY(…)` over hundreds of ids had the planner scan every signature of the org.
  const keys = [orgId, candidates.map((r) => r.decision_id), candidates.map((r) => Number(r.version))];
  const sigs = await q.query<{ decision_id: string; signer: string; signer_kind: 'human' | 'agent' }>(
    `SELECT s.decision_id, s.signer, s.signer_kind FROM unnest($2::text[], $3::int[]) AS d(id, version)
       JOIN decision_signatures s ON s.org_id = $1 AND s.decision_id = d.id AND s.version = d.version`,
    keys,
  );
  const blocked = new Set(
    (
      await q.query<{ decision_id: string }>(
        `SELECT d.id AS decision_id FROM unnest($2::text[], $3::int[]) AS d(id, version)
          WHERE EXISTS (SELECT 1 FROM decision_comments c WHERE c.org_id = $1 AND c.decision_id = d.id AND c.version = d.version
                           AND c.kind = 'adjustment' AND c.resolved_at IS NULL)`,
        keys,
      )
    ).map((r) => r.decision_id),
  );
  const signedBy = new Map<string, { id: string; kind: 'human' | 'agent' }[]>();
  for (const s of sigs) {
    const list = signedBy.get(s.decision_id) ?? [];
    list.push({ id: s.signer, kind: s.signer_kind });
    signedBy.set(s.decision_id, list);
  }

  // standing() reads the owner only through an `owner` decider: one answer per right otherwise.
  const standings = new Map<string, Promise<Standing>>();
  const standingOf = (r: OpenRow, resolved: ResolvedRight) => {
    const key = `${r.area}\u0000${resolved.right.decidedBy === 'owner' ? r.driver : ''}`;
    let st = standings.get(key);
    if (!st) standings.set(key, (st = standing(q, orgId, me, resolved)));
    return st;
  };
  const out: string[] = [];
  for (const r of candidates) {
    const resolved = resolvedOf(r);
    const signed = signedBy.get(r.decision_id) ?? [];
    let unmet = 0;
    let mine = false;
    for (const selector of resolved.right.agree ?? []) {
      let met = false;
      for (const s of signed) {
        if (await sel(selector, s, r.driver)) {
          met = true;
          break;
        }
      }
      if (met) continue;
      unmet++;
      if (await sel(selector, me, r.driver)) mine = true;
    }
    if (mine && !signed.some((s) => s.id === me.id)) {
      out.push(r.decision_id);
      continue;
    }
    if (unmet > 0 || blocked.has(r.decision_id)) continue;
    if (me.kind === 'agent' && r.driver === me.id) continue;
    const st = await standingOf(r, resolved);
    if (st.satisfies && !st.override) out.push(r.decision_id);
  }
  return out;
}
