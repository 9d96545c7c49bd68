import { ApiError, badRequest, notFound } from '../../protocol/errors.js';
import { METHODS } from '../../protocol/registry.js';
import type { Queryable } from '../../db/types.js';
import { actionClassOf, methodOfClass, signatureKind, signaturePayloadHash } from './signature.js';

/*
 * What approval.request binds an approval to. The subject kind decides: the canonical signature kind of the action
 * class (`books.signature` for `books.*`, `board.signature` for `board.*`: `<family>.signature`) must name a hold the server recorded, and the approval then carries that
 * hold's call and summary, never the requester's words. Every other kind files an approval that can never release an
 * act, and is refused wherever it could pass for a signature: a near-miss of the signature kind (case, spaces,
 * another family, look-alike characters), an action class that names a method, a payload hash that names a held act.
 */

/** The held call an approval is bound to: what the human is shown, copied once and never changed (migration 011). */
export interface Binding {
  method: string;
  params: Record<string, unknown>;
  summary: string;
  heldAt: string;
  expiresAt: string;
  /** How the held act completes and who may decide it, as the act said when it held (migration 018). */
  completion: 'retry' | 'release';
  deciders: string[] | null;
  amendable: string[] | null;
}

/** Plain lowercase ASCII words, dot-separated: nothing invisible, nothing that only looks like another kind. */
const KIND_FORM = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;

export async function bindingFor(
  q: Queryable,
  orgId: string,
  p: { actionClass: string; payloadHash: string; subject: { kind: string; subjectId: string } },
): Promise<Binding | null> {
  const { kind } = p.subject;
  const canonical = signatureKind(p.actionClass);
  if (kind === canonical) return heldActFor(q, orgId, { actionClass: p.actionClass, payloadHash: p.payloadHash, subjectId: p.subject.subjectId });
  const exactly = `a signature approval's kind is exactly "${canonical}", as the hold frame names it`;
  if (!KIND_FORM.test(kind)) {
    throw badRequest('subject.kind', `${JSON.stringify(kind)} is not a kind: use lowercase letters, digits and underscores, words joined by dots (${exactly})`);
  }
  if (/signature/.test(kind)) throw badRequest('subject.kind', `${JSON.stringify(kind)} is not "${canonical}": ${exactly}`);
  const method = methodOfClass(p.actionClass);
  if (METHODS.has(method) && actionClassOf(method) === p.actionClass) {
    throw badRequest(
      'subject.kind',
      `actionClass ${p.actionClass} is the act ${method}: an approval for it can only be its signature; call ${method} for a hold and file what it names (${exactly})`,
    );
  }
  const [held] = await q.query<{ method: string; action_class: string }>(
    'SELECT method, action_class FROM signature_holds WHERE org_id = $1 AND payload_hash = $2',
    [orgId, p.payloadHash],
  );
  if (held) {
    throw badRequest(
      'subject.kind',
      `payloadHash ${p.payloadHash} is a held act of ${held.method}: file it as its signature, actionClass ${held.action_class} and subject.kind exactly "${signatureKind(held.action_class)}", as the hold frame names them`,
    );
  }
  return null;
}

interface HoldRow {
  action_class: string;
  subject_id: string;
  summary: string;
  method: string;
  params: Record<string, unknown>;
  held_at: string;
  expires_at: string;
  expired: boolean;
  completion: 'retry' | 'release';
  deciders: string[] | null;
  amendable: string[] | null;
}

/**
 * For a signature approval the held act is the authority: it must exist in this org, match the class and subject,
 * be unexpired, and be what its hash says; its recorded call and summary are what the human reads.
 */
async function heldActFor(q: Queryable, orgId: string, p: { actionClass: string; payloadHash: string; subjectId: string }): Promise<Binding> {
  const [hold] = await q.query<HoldRow>(
    `SELECT action_class, subject_id, summary, method, params, held_at, expires_at, expires_at < now() AS expired, completion, deciders, amendable
       FROM signature_holds WHERE org_id = $1 AND payload_hash = $2 FOR SHARE`,
    [orgId, p.payloadHash],
  );
  if (!hold) {
    throw notFound(`held act with payloadHash ${p.payloadHash} (call the signature act first and file exactly what its hold frame names)`);
  }
  if (hold.action_class !== p.actionClass || hold.subject_id !== p.subjectId) {
    throw new ApiError(
      'CONFLICT',
      `payloadHash ${p.payloadHash} was held for ${hold.action_class} on ${hold.subject_id}, not ${p.actionClass} on ${p.subjectId}`,
    );
  }
  if (hold.expired) {
    throw new ApiError('GOVERNANCE_NOT_READY', `the hold expired at ${hold.expires_at}; call the act again for a new hold`);
  }
  if (actionClassOf(hold.method) !== hold.action_class || signaturePayloadHash(hold.action_class, hold.subject_id, hold.params) !== p.payloadHash) {
    throw new ApiError('CONFLICT', `the recorded hold for payloadHash ${p.payloadHash} does not hash to it; call the act again for a new hold`);
  }
  return {
    method: hold.method,
    params: hold.params,
    summary: hold.summary,
    heldAt: hold.held_at,
    expiresAt: hold.expires_at,
    completion: hold.completion,
    deciders: hold.deciders,
    amendable: hold.amendable,
  };
}
