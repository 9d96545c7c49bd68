import type { MethodContract } from '../../protocol/contract.js';
import type { CallFrame } from '../../protocol/frames.js';
import type { IdempotencyScope, StoredCall } from '../../ledger/idempotency.js';
import { openFrame, sealFrame } from '../../ledger/sealed-frame.js';

/*
 * Results that carry a secret (the contract's `secrets`: a minted API key) never reach the idempotency table in
 * clear. The store keeps the result with those fields null and `secretWithheld`, plus the whole frame sealed under
 * the calling API key: a retry with that key replays the first answer byte for byte, any other caller (another key
 * of the same principal, a rotated key) gets the withheld form. One execution either way.
 */

/** What the idempotency store keeps of a committed call. */
export interface FrameAtRest {
  frame: string;
  sealedFrame: string | null;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The frame to store for this committed call: `body` itself unless its result carries a declared secret. */
export function frameAtRest(contract: MethodContract, frame: CallFrame, body: string, bearer: string | undefined, scope: IdempotencyScope): FrameAtRest {
  const secrets = contract.secrets;
  if (!secrets || !frame.ok || !isRecord(frame.result)) return { frame: body, sealedFrame: null };
  const result = frame.result;
  const present = secrets.fields.filter((f) => result[f] !== undefined && result[f] !== null);
  if (!present.length) return { frame: body, sealedFrame: null };
  const withheld = { ...result, ...Object.fromEntries(present.map((f) => [f, null])), secretWithheld: withheldMessage(present, secrets.ifLost, result) };
  return {
    frame: JSON.stringify({ ok: true, result: withheld }),
    // A call without a bearer secret (a face that passed only a principal) has nothing to seal under.
    sealedFrame: bearer ? sealFrame(body, bearer, scope) : null,
  };
}

/** The bytes a repeat replays: the whole first frame if this caller's API key opens it, else the stored frame. */
export function replayBody(stored: StoredCall, bearer: string | undefined, scope: IdempotencyScope): string {
  if (stored.sealedFrame === null || !bearer) return stored.frame;
  return openFrame(stored.sealedFrame, bearer, scope) ?? stored.frame;
}

function withheldMessage(fields: readonly string[], ifLost: string, result: Record<string, unknown>): string {
  const hint = ifLost.replace(/\{(\w+)\}/g, (whole, f: string) => (typeof result[f] === 'string' ? result[f] : whole));
  return (
    `${fields.join(' and ')} withheld: this replays the first call made with this idempotency key, whose secret is shown once; ` +
    `the server keeps it only encrypted under the API key that made that call, so only a retry with that same key gets it back. ` +
    `If it was lost, ${hint}.`
  );
}
