import type { z } from 'zod';
import type { InboxItem } from '../../protocol/reads/inbox.js';
import type { Queryable } from '../../db/types.js';
import type { Principal } from '../core/auth.js';

/*
 * GET /api/v1/org/inbox gathers what waits on the caller from every family that has such a thing. A family
 * contributes a WaitingSource under `waiting` in its descriptor; the inbox names none of them and reads no table.
 */

export type InboxEntry = z.output<typeof InboxItem>;

export interface WaitingQuery {
  q: Queryable;
  orgId: string;
  me: Principal;
  /** Business time (the runtime's clock). */
  now: Date;
  /** At most this many items of each kind. */
  cap: number;
}

export interface Waiting {
  items: InboxEntry[];
  /** When this source's answer next changes by the clock alone (an expiry, an escalation reaching the caller). */
  nextChangeAt?: string | null;
}

/** What waits on the caller in one family, newest first. */
export type WaitingSource = (w: WaitingQuery) => Promise<Waiting>;

declare module '../core/family.js' {
  interface Contributions {
    waiting: WaitingSource;
  }
}

/** The earliest of these instants, or null. */
export const earliest = (times: readonly (string | null | undefined)[]): string | null =>
  times.filter((t): t is string => typeof t === 'string').sort()[0] ?? null;
