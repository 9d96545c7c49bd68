import type { Queryable } from '../../../db/types.js';
import type { Principal } from '../../core/auth.js';
import { awaitingWhy, type AwaitingWhy } from './awaiting.js';
import type { InboxEntry, WaitingSource } from '../../inbox/index.js';

/** An open decision waiting on the caller (awaiting=me), with what GET /org/inbox shows of it. */
export interface AwaitingDecision {
  id: string;
  number: number;
  title: string;
  area: string;
  version: number;
  driver: string;
  /** signature: agree names the caller and it has not signed this version; decision: ready, and the caller decides. */
  why: AwaitingWhy;
  /** Since when: its current version was proposed, or its last signature on that version came in, whichever is later. */
  since: string;
}

/** The awaiting=me decisions of GET /decision.list (awaiting.ts), newest number first, with their titles. */
export async function awaitingMe(q: Queryable, orgId: string, me: Principal): Promise<AwaitingDecision[]> {
  const found = await awaitingWhy(q, orgId, me);
  if (found.length === 0) return [];
  const why = new Map(found.map((a) => [a.id, a.why]));
  const rows = await q.query<{ decision_id: string; number: number; title: string; area: string; version: number; driver: string; since: string }>(
    `SELECT d.decision_id, d.number, d.title, d.area, d.version, d.driver,
            GREATEST(v.proposed_at, (SELECT max(s.signed_at) FROM decision_signatures s
                                      WHERE s.org_id = d.org_id AND s.decision_id = d.decision_id AND s.version = d.version)) AS since
       FROM decisions d JOIN decision_versions v ON v.org_id = d.org_id AND v.decision_id = d.decision_id AND v.version = d.version
      WHERE d.org_id = $1 AND d.decision_id = ANY($2::text[]) ORDER BY d.number DESC`,
    [orgId, [...why.keys()]],
  );
  return rows.map((r) => ({
    id: r.decision_id,
    number: Number(r.number),
    title: r.title,
    area: r.area,
    version: Number(r.version),
    driver: r.driver,
    why: why.get(r.decision_id)!,
    since: r.since,
  }));
}

/** The decision family's part of GET /org/inbox: decisions waiting on the caller's signature or decision. */
export const decisionWaiting: WaitingSource = async ({ q, orgId, me, cap }) => ({
  items: (await awaitingMe(q, orgId, me)).slice(0, cap).map((d): InboxEntry => ({
    kind: d.why,
    id: d.id,
    title: d.title,
    since: d.since,
    from: d.driver,
    link: { method: d.why === 'signature' ? 'decision.sign' : 'decision.adopt', params: { decisionId: d.id, version: d.version } },
    number: d.number,
    version: d.version,
    area: d.area,
  })),
});
