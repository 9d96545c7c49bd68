import type { NotifyPayload } from '../../db/notifier.js';
import type { Queryable } from '../../db/types.js';
import type { Principal } from '../core/auth.js';

/*
 * Frames the org stream sends beside the ledger's (an artifact patched or answered: the registry keeps its methods R,
 * so no event). A family contributes `liveFrames`: the notifier topic it announces on (after commit, ids and counts
 * only) and, per stream, the frame's data for that stream's principal or null when it may not see it. Such frames
 * have an `event:` name and no `id:` (they are not in the ledger: Last-Event-ID resumes only ledger frames).
 */

export interface LiveFrames {
  /** The notifier topic; each message must carry `orgId`. */
  topic: string;
  /** The SSE event name. */
  event: string;
  frame(db: Queryable, principal: Principal, payload: NotifyPayload): Promise<Record<string, unknown> | null>;
}

declare module '../core/family.js' {
  interface Contributions {
    /** Org stream frames beside the ledger's (domain/stream/live.ts). */
    liveFrames: LiveFrames;
  }
}
