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

/** The result of an unproven signature act (spec: Resources, "Hold frame"). */
export const HoldResult = z.strictObject({
  status: z.literal('approval_required'),
  approval: z.strictObject({
    actionClass: z.string().describe('Action class to file with approval.request, `books.<snake_case_act>`.'),
    payloadHash: z.string().describe('SHA-256 hex of the canonical JSON of {actionClass, subjectId, params}.'),
    subject: z.strictObject({
      kind: z.literal('books.signature'),
      subjectId: z.string().describe('Id of the row to be signed.'),
      summary: z.string().describe('Short human-readable description of what would happen.'),
    }),
    expiresInMs: z.number().int().describe('Milliseconds until the hold expires.'),
  }),
  subjectId: z.string(),
  message: z.string().describe('What to file and how to retry; relay it verbatim to the user.'),
});
export type HoldResult = z.infer<typeof HoldResult>;

export function isHoldResult(result: unknown): result is HoldResult {
  return typeof result === 'object' && result !== null && (result as { status?: unknown }).status === 'approval_required';
}
