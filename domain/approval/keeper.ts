import { appendEvent } from '../../ledger/append.js';
import type { HoldKeeper } from '../core/holds.js';
import { holdEventKind, holdEventPayload, holdFamily, holdResult, recordHold, refusalMessage, refusedHold, setHoldSeq } from './hold.js';
import { fileReleaseApproval } from './release.js';
import { requireSignature, verifyProofIfGiven } from './signature.js';

/**
 * The approval family keeps every family's signature holds (its descriptor's `holds`): the proof check, and what a
 * held act leaves (the hold row, the approval a release hold files, the `<family>.signature.hold` event) or, for an
 * act refused without proof (PB-B1), the held act alone and the refusal.
 */
export const holdKeeper: HoldKeeper = {
  requireSignature,
  verifyProofIfGiven,
  async hold(q, { orgId, principal, method, signal, deps }) {
    const ttlMs = deps.config.holdTtlMs;
    if (signal.request.refuseWithoutProof) {
      // A refusal appends nothing and caches nothing; only the held act is kept, for approval.request.
      await recordHold(q, { orgId, method, heldBy: principal.id, ttlMs, signal, event: null });
      return { refusal: { message: refusalMessage(signal, deps), hold: refusedHold(signal, deps), reason: signal.request.refuseWithoutProof } };
    }
    // The hold's row first: its lock makes a second hold of the same act wait here, then find the approval this one
    // files (one act, one decision), and the ledger head comes last, as in every call. Recorded after the append,
    // the row waited behind approval.request's share lock while the head was held, and the two deadlocked.
    await recordHold(q, { orgId, method, heldBy: principal.id, ttlMs, signal, event: null });
    // Release mode: the server files the approval now, before the event that names it (release.ts).
    const filed = signal.request.completion === 'release' ? await fileReleaseApproval(q, { orgId, principal, method, signal, ttlMs }) : null;
    const event = await appendEvent(q, orgId, {
      family: holdFamily(signal),
      kind: holdEventKind(signal),
      entityId: signal.request.subjectId,
      actor: principal.id,
      payload: holdEventPayload(signal, method, filed),
    });
    await setHoldSeq(q, orgId, signal.payloadHash, event.seq);
    return { event, result: holdResult(signal, deps, event, filed) };
  },
};
