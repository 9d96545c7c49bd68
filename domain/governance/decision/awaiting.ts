import type { Queryable } from '../../../db/types.js';
import type { Principal } from '../../core/auth.js';
import { roleMembers } from '../colleagues.js';
import { findRight, readRights, selects, standing, type ResolvedRight, type Standing, type Who } from '../rights.js';
import { parseSelector } from '../selectors.js';

/*
 * awaiting=me: the open decisions waiting on the caller. Either its signature: agree names it, it has not signed the
 * current version and a selector naming it is still unmet; or its decision: every agree signature is in, no
 * adjustment request is open, and it decides the area (by the rights, not by admin override; an agent never its
 * own proposal). Open decisions are found by the partial index, grouped by area so each right is resolved once.
 * A role's members are read once and a standing once per right (not once per decision and signer: an org has far
 * fewer roles and rights than open decisions); signatures and adjustment requests of the current versions are read
 * through their (decision, version) keys.
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

/**
 * selects() for one request: a role selector reads the role's members once (one query per role, not one per
 * principal and decision), then answers from them.
 */
function selectsOnce(q: Queryable, orgId: string) {
  const members = new Map<string, Promise<Set<string>>>();
  return async (selector: string, who: Who, owner?: string | null): Promise<boolean> => {
    const s = parseSelector(selector, 'party');
    if ('error' in s || s.kind !== 'role') return selects(q, orgId, selector, who, owner);
    let held = members.get(s.slug);
    if (!held) members.set(s.slug, (held = roleMembers(q, orgId, s.slug).then((ids) => new Set(ids))));
    return (await held).has(who.id);
  };
}

/** Why an open decision waits on the caller: its signature, or its decision. */
export type AwaitingWhy = 'signature' | 'decision';

/**
 * Only the newest `limit` of them below number `before` (a page of GET /decision.list without other filters): open
 * decisions are then judged a batch at a time, newest first, until the page is full, not all of them for one page.
 */
export interface AwaitingPage {
  before?: number;
  limit: number;
}

export async function awaitingIds(q: Queryable, orgId: string, me: Principal, page?: AwaitingPage): Promise<string[]> {
  return (await awaitingWhy(q, orgId, me, page)).map((a) => a.id);
}

/** The same decisions, each with why it waits on the caller (GET /org/inbox, through waiting.ts). */
export async function awaitingWhy(q: Queryable, orgId: string, me: Principal, page?: AwaitingPage): Promise<{ id: string; why: AwaitingWhy }[]> {
  const sel = selectsOnce(q, orgId);
  const selAny = async (selectors: readonly string[] | undefined, who: Who, owner: string) => {
    for (const s of selectors ?? []) if (await sel(s, who, owner)) return true;
    return false;
  };
  const { rights } = await readRights(q, orgId, 'none');
  const open = await q.query<OpenRow>(
    `SELECT decision_id, number, area, driver, version FROM decisions
      WHERE org_id = $1 AND status IN ('proposed', 'adjustment_requested') AND ($2::int IS NULL OR number < $2)
      ORDER BY number DESC LIMIT ${MAX_OPEN}`,
    [orgId, page?.before ?? null],
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
  // standing() reads the owner only through an `owner` decider: one answer per right otherwise.
  const standings = new Map<string, Promise<Standing>>();
  const standingOf = (r: OpenRow, resolved: ResolvedRight) => {
    const key = `${r.area}\u0000${resolved.right.decidedBy === 'owner' ? r.driver : ''}`;
    let st = standings.get(key);
    if (!st) standings.set(key, (st = standing(q, orgId, me, resolved)));
    return st;
  };
  const out: { id: string; why: AwaitingWhy }[] = [];
  const batch = page ? Math.max(100, 2 * page.limit) : candidates.length;
  for (let from = 0; from < candidates.length && !(page && out.length >= page.limit); from += batch) {
    const some = candidates.slice(from, from + batch);
    // One statement: per (decision, current version), its signatures through their unique key and whether an
    // adjustment request blocks it through the comments' index. Correlated subqueries stay lookups; as a join (or
    // with `decision_id = ANY(…)`) the planner hashed every signature of the org instead, several times slower.
    const rows = await q.query<{ decision_id: string; signed: Signer[] | string | null; blocked: boolean | null }>(
      `SELECT d.id AS decision_id,
              (SELECT json_agg(json_build_object('id', s.signer, 'kind', s.signer_kind)) FROM decision_signatures s
                WHERE s.org_id = $1 AND s.decision_id = d.id AND s.version = d.version) AS signed,
              (SELECT true FROM decision_comments c
                WHERE c.org_id = $1 AND c.decision_id = d.id AND c.version = d.version AND c.kind = 'adjustment' AND c.resolved_at IS NULL
                LIMIT 1) AS blocked
         FROM unnest($2::text[], $3::int[]) AS d(id, version)`,
      [orgId, some.map((r) => r.decision_id), some.map((r) => Number(r.version))],
    );
    const blocked = new Set(rows.filter((r) => r.blocked).map((r) => r.decision_id));
    const signedBy = new Map<string, Signer[]>(
      rows.map((r) => [r.decision_id, (typeof r.signed === 'string' ? (JSON.parse(r.signed) as Signer[]) : r.signed) ?? []]),
    );
    for (const r of some) {
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
        out.push({ id: r.decision_id, why: 'signature' });
        continue;
      }
      if (unmet > 0 || blocked.has(r.decision_id)) continue;
      if (me.kind === 'agent' && r.driver === me.id) continue;
      const st = await standingOf(r, resolved);
      if (st.satisfies && !st.override) out.push({ id: r.decision_id, why: 'decision' });
    }
  }
  return page ? out.slice(0, page.limit) : out;
}

type Signer = { id: string; kind: 'human' | 'agent' };
