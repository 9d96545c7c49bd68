import { z } from 'zod';
import type { ErrorCode } from './errors.js';

export interface OkFrame<T = unknown> {
  ok: true;
  result: T;
}

export interface ErrorFrame {
  ok: false;
  error: { code: ErrorCode; message: string };
}

export type CallFrame<T = unknown> = OkFrame<T> | ErrorFrame;

export const okFrame = <T>(result: T): OkFrame<T> => ({ ok: true, result });
export const errorFrame = (code: ErrorCode, message: string): ErrorFrame => ({ ok: false, error: { code, message } });

/** The result of an unproven signature act (spec: Resources, "Hold frame"), in any family. */
export const HoldResult = z.strictObject({
  status: z.literal('approval_required'),
  approval: z.strictObject({
    actionClass: z.string().describe('Action class, `<family>.<snake_case_act>` (`books.payroll_sign`).'),
    payloadHash: z.string().describe('SHA-256 hex of the canonical JSON of {actionClass, subjectId, params}.'),
    subject: z.strictObject({
      kind: z
        .string()
        .regex(/^[a-z][a-z0-9_]*\.signature$/)
        .describe('`<family>.signature` of the action class’s family (`books.signature` for the books).'),
      subjectId: z.string().describe('Id of the row to be signed.'),
      summary: z.string().describe('Short human-readable description of what would happen.'),
    }),
    expiresInMs: z.number().int().describe('Milliseconds until the hold expires.'),
    completion: z
      .enum(['retry', 'release'])
      .describe(
        'retry: file approval.request with these, wait for a human, then retry with the proof. release: the server filed the approval (approvalId); a human’s approve runs the act itself; do not retry, wait (approval.wait).',
      ),
    approvalId: z.string().optional().describe('release: the approval the server filed for this hold.'),
    deciders: z.array(z.string()).optional().describe('The only humans (principal ids) who may decide it; absent: any human approver.'),
    amendable: z.array(z.string()).optional().describe('release: the params a human may amend before releasing.'),
  }),
  subjectId: z.string(),
  message: z.string().describe('What to file and how to retry (or wait); relay it verbatim to the user.'),
});
export type HoldResult = z.infer<typeof HoldResult>;

export function isHoldResult(result: unknown): result is HoldResult {
  return typeof result === 'object' && result !== null && (result as { status?: unknown }).status === 'approval_required';
}
