import type { Queryable } from '../../db/types.js';
import type { FamilySet } from '../core/family.js';

/*
 * What happens to a person's work when their access is cut is the business of the families that hold work (the
 * board's claims, items and workstreams), not of the people group: each contributes a HeldWork under `heldWork`,
 * called inside the suspending or offboarding transaction, whose one event counts what moved.
 */

export interface HeldWork {
  /** Release every claim the principal holds (the work goes back to the pool); how many. */
  releaseClaims(q: Queryable, orgId: string, principalId: string): Promise<number>;
  /** Give the principal's open items to `to`; how many. */
  moveOpenItems(q: Queryable, orgId: string, from: string, to: string): Promise<number>;
  /** Give the workstreams the principal owns to `to`; how many. */
  moveWorkstreams(q: Queryable, orgId: string, from: string, to: string): Promise<number>;
}

declare module '../core/family.js' {
  interface Contributions {
    heldWork: HeldWork;
  }
}

/** The families' HeldWork as one: each act runs every contribution in list order and sums the counts. */
export function heldWork(families: FamilySet): HeldWork {
  const all = families.contributions('heldWork').map((c) => c.value);
  const sum = async (act: (w: HeldWork) => Promise<number>): Promise<number> => {
    let n = 0;
    for (const w of all) n += await act(w);
    return n;
  };
  return {
    releaseClaims: (q, orgId, principalId) => sum((w) => w.releaseClaims(q, orgId, principalId)),
    moveOpenItems: (q, orgId, from, to) => sum((w) => w.moveOpenItems(q, orgId, from, to)),
    moveWorkstreams: (q, orgId, from, to) => sum((w) => w.moveWorkstreams(q, orgId, from, to)),
  };
}
