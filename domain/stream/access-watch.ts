import type { Notifier } from '../../db/notifier.js';

/**
 * Notifier topic sent by the database itself (migration 045's triggers) when a key's access may have ended: a key
 * revoked or re-scoped, a member's status changed (suspended, deactivated, offboarded, archived, SCIM
 * active:false), an org deleted, an inbox session deleted. Ids only; absent ones are null (an org: all of it).
 */
export const ACCESS_CHANGED = 'access.changed';

export interface AccessChange {
  orgId: string;
  principalId: string | null;
  keyId: string | null;
  sessionId: string | null;
}

/** What an open stream holds: the key it authenticated with and, for an inbox stream, its session. */
export interface Holder {
  orgId: string;
  principalId: string;
  keyId: string;
  sessionId?: string;
}

/** Whether a change may concern the holder: its org, and its principal, key or session when the change names one. */
export function concerns(change: AccessChange, h: Holder): boolean {
  if (change.orgId !== h.orgId) return false;
  if (change.sessionId !== null) return change.sessionId === h.sessionId;
  if (change.keyId !== null) return change.keyId === h.keyId;
  if (change.principalId !== null) return change.principalId === h.principalId;
  return true;
}

const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/**
 * Call `recheck` for every open stream a change may concern, in every process (the notifier delivers at commit to
 * all). A lost connection may have dropped changes: on resync every stream is re-checked. Returns the stop function.
 */
export function watchAccess<H extends Holder>(notifier: Notifier, open: () => Iterable<H>, recheck: (h: H) => void): () => void {
  return notifier.subscribe(
    ACCESS_CHANGED,
    (m) => {
      const orgId = text(m.orgId);
      if (orgId === null) return;
      const change: AccessChange = { orgId, principalId: text(m.principalId), keyId: text(m.keyId), sessionId: text(m.sessionId) };
      for (const h of [...open()]) if (concerns(change, h)) recheck(h);
    },
    () => {
      for (const h of [...open()]) recheck(h);
    },
  );
}
