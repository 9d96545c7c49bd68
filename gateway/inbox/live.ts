import { currentKind } from '../../protocol/events.js';
import type { FeedEvent } from '../../domain/stream/hub.js';

/*
 * What the inbox's event stream tells the page, read from the org's live ledger (domain/stream). Frames carry ids
 * and family names only: the page reads the lists back through the pipeline.
 * - `approval` {approvalId, change: requested | approved | rejected}: an approval filed or decided; a release hold's
 *   approval is filed by the server with the hold, so `<family>.signature.hold` naming one counts as filed.
 * - `waiting` {family}: something in a family that GET /org/inbox gathers changed (a decision proposed or signed,
 *   rights declared, a handoff offered or answered, an escalation raised or resolved, an introduction asked or
 *   answered): the page reads "Waiting on you" again. Approval changes refresh it too.
 */

/** By the approval's event kind (its current name: protocol/events.ts). */
const CHANGES: Record<string, string> = {
  'approval.request.create': 'requested',
  'approval.request.approve': 'approved',
  'approval.request.reject': 'rejected',
};

/** Families whose events can change what waits on someone (charter roles and rights feed the decision rights). */
const WAITING_FAMILIES: ReadonlySet<string> = new Set(['decision', 'escalation', 'handoff', 'governance', 'charter']);

const waitingFamily = (family: string, kind: string): boolean => WAITING_FAMILIES.has(family) || kind.startsWith('directory.awareness.');

export const ledgerChanges = (send: (event: string, data: unknown) => void) => (events: readonly FeedEvent[]) => {
  const waiting = new Set<string>();
  for (const e of events) {
    const change = e.row.family === 'approval' ? CHANGES[currentKind(e.row.family, e.row.kind)] : undefined;
    if (change) send('approval', { approvalId: e.row.entity_id, change });
    else if (e.row.kind.endsWith('.signature.hold')) {
      const payload = (typeof e.row.payload === 'string' ? JSON.parse(e.row.payload) : e.row.payload) as { approvalId?: unknown } | null;
      const filed = payload?.approvalId;
      if (typeof filed === 'string') send('approval', { approvalId: filed, change: 'requested' });
    }
    if (waitingFamily(e.row.family, e.row.kind)) waiting.add(e.row.family);
  }
  // One frame per family per batch: a burst of events is one re-read, not one per event.
  for (const family of waiting) send('waiting', { family });
};
