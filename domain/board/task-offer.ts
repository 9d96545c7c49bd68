import type { z } from 'zod';
import type { Queryable } from '../../db/types.js';
import type { Handoff } from '../../protocol/methods/handoff.js';
import type { FamilySet } from '../core/family.js';

/*
 * GET /board.context shows an item's open handoff offer. Handoffs belong to the governance group, which moves board
 * items and so needs the board: rather than import it back, the board reads what is contributed under `taskOffer`.
 */

/** The item's open offer as the read shows it (expiry judged at `now`), or null. */
export type TaskOffer = (q: Queryable, orgId: string, taskId: string, now: Date) => Promise<z.output<typeof Handoff> | null>;

declare module '../core/family.js' {
  interface Contributions {
    taskOffer: TaskOffer;
  }
}

/** The first open offer any deployed family reports for the item, or null (none deployed: null). */
export async function taskOffer(families: FamilySet, q: Queryable, orgId: string, taskId: string, now: Date): Promise<z.output<typeof Handoff> | null> {
  for (const c of families.contributions('taskOffer')) {
    const offer = await c.value(q, orgId, taskId, now);
    if (offer) return offer;
  }
  return null;
}
