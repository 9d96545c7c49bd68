import { z } from 'zod';
import { method } from '../contract.js';
import { id, text } from '../schema.js';

export const ApprovalStatus = z.enum(['pending', 'approved', 'rejected', 'withdrawn', 'expired']);

export const ApprovalSubject = z.strictObject({
  kind: text({
    min: 1,
    max: 64,
    description:
      'What is being approved: exactly `<family>.signature` of the action class (`books.signature`, `board.signature`) for a signature act, as its hold frame names it; only such an approval, bound to the hold the server recorded, can release an act. Any other kind (lowercase words joined by dots) never releases one.',
  }),
  subjectId: text({ min: 1, max: 64, description: 'Id of the row the act is about (the hold frame’s subjectId).' }),
  summary: text({
    min: 1,
    max: 500,
    description: 'Short description for the human. For a signature the server keeps and shows the summary recorded with the hold instead.',
  }),
});

export const ApprovalView = z.strictObject({
  approvalId: z.string(),
  status: ApprovalStatus.describe('expired: still undecided past expiresAt. withdrawn: its requester took the act back before anyone decided it.'),
  actionClass: z.string(),
  payloadHash: z.string(),
  subject: z.strictObject({ kind: z.string(), subjectId: z.string(), summary: z.string() }),
  heldAct: z
    .strictObject({ method: z.string(), params: z.record(z.string(), z.unknown()) })
    .nullable()
    .describe(
      'For a signature approval: the exact held call behind payloadHash, copied from the hold when filed. null: bound to no held act, so it can never release one.',
    ),
  completion: z
    .enum(['retry', 'release'])
    .describe('retry: once approved, the requester retries the act with the proof. release: the approve itself runs the held act, in the decision.'),
  deciders: z
    .array(z.string())
    .nullable()
    .describe('The only humans (principal ids) who may decide it; null: any human with approval.decide but the requester.'),
  amendable: z.array(z.string()).nullable().describe('release: the params a human may amend when approving (approval.resolve amendments); null for retry.'),
  released: z
    .strictObject({
      params: z.record(z.string(), z.unknown()).describe('The params the act ran with: the held params plus the amendments.'),
      payloadHash: z.string().describe('SHA-256 of the canonical JSON of {actionClass, subjectId, params} as they ran.'),
      amended: z.array(z.string()).describe('The params the deciding human changed.'),
    })
    .nullable()
    .describe('release, once approved: what the decision ran (in its own transaction).'),
  requestedBy: z.string(),
  requestedAt: z.string(),
  expiresAt: z.string(),
  decidedBy: z.string().nullable(),
  decidedAt: z.string().nullable(),
  note: z.string().nullable(),
  used: z.boolean().describe('True once the proof was consumed by the act (single use).'),
  usedAt: z.string().nullable(),
  url: z.string().describe('Where a human reviews it in the approval inbox.'),
  signatureToken: z.string().optional().describe('Proof to retry the act with (or use approvalId). Shown to the requester and the approver once approved.'),
});
export type ApprovalView = z.infer<typeof ApprovalView>;

const approvalId = id('apr', 'The approval (from approval.request).');

export const approval = {
  request: method({
    summary:
      'File a request for a human decision, with exactly the actionClass, payloadHash and subject a hold frame named. Then wait (GET /approval.wait) and retry the held act with approvalId and a fresh idempotency key.',
    params: z.strictObject({
      actionClass: z
        .string()
        .regex(/^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/, 'must look like books.payroll_sign')
        .max(100)
        .describe('From the hold frame: result.approval.actionClass.'),
      payloadHash: z
        .string()
        .regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters')
        .describe('From the hold frame: result.approval.payloadHash.'),
      subject: ApprovalSubject.describe('From the hold frame: result.approval.subject.'),
    }),
    result: ApprovalView,
    events: ['approval.request.create'],
    example: {
      actionClass: 'books.payroll_sign',
      payloadHash: '9f2c4a1e8b7d6c5f4e3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e',
      subject: { kind: 'books.signature', subjectId: 'pay_0123456789abcdef', summary: 'Pay run 1–14 Nov: 4 staff, net $12,400.00' },
    },
  }),
  resolve: method({
    summary:
      'A human decides a pending approval. Only a human principal with approval.decide, never the principal that requested it, and, when the approval names deciders, only one of them. Approving a retry approval mints the signatureToken; approving a release approval runs the held act in the same transaction (with any amendments), or refuses with CONFLICT if it cannot run.',
    params: z.strictObject({
      approvalId,
      decision: z.enum(['approve', 'reject']).describe('approve releases the act once; reject refuses it for good.'),
      note: text({ max: 2000, description: 'Why, for the record and the requester.' }).optional(),
      amendments: z
        .record(z.string(), z.unknown())
        .optional()
        .describe(
          'Release approvals, approve only: new values for params the approval lists as amendable (null leaves an optional one out); the act runs with them.',
        ),
    }),
    result: ApprovalView,
    events: ['approval.request.approve', 'approval.request.reject'],
    example: { approvalId: 'apr_0123456789abcdef', decision: 'approve', note: 'Checked against the timesheets.' },
  }),
  get: method({
    summary: 'One approval with its status and, for a signature, the exact held call.',
    params: z.strictObject({ approvalId }),
    result: ApprovalView,
    example: { approvalId: 'apr_0123456789abcdef' },
  }),
  list: method({
    summary: 'Approvals of this org, newest first: pending ones (what still waits for a human) unless status asks for another status, or all.',
    params: z.strictObject({
      status: z
        .enum([...ApprovalStatus.options, 'all'])
        .default('pending')
        .describe('Only approvals in this status (default pending); all: every status.'),
      cursor: z.string().max(200).describe('nextCursor of the previous page; omit for the first page.').optional(),
      limit: z.number().int().min(1).max(200).default(50).describe('Page size, 1 to 200 (default 50).'),
    }),
    result: z.strictObject({ approvals: z.array(ApprovalView), nextCursor: z.string().nullable() }),
    example: { status: 'pending', limit: 20 },
  }),
};
