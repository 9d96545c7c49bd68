import { z } from 'zod';
import { read } from '../contract.js';
import { id } from '../schema.js';
import { ApprovalView } from '../methods/approval.js';

export const approvalReadContracts = {
  'approval.wait': read({
    summary: 'Long-poll one approval: answers as soon as it is decided (or expired), else after timeoutMs with timedOut true. Call again to keep waiting.',
    query: z.strictObject({
      approvalId: id('apr', 'The approval to wait for.'),
      timeoutMs: z.coerce
        .number({ message: 'must be an integer' })
        .int('must be an integer')
        .min(0, 'must be >= 0')
        // Below the 60 s request timeout of the MCP SDK's client and of common proxies: a wait never outlives its request.
        .max(50_000, 'must be at most 50000')
        .default(25_000)
        .describe('How long to wait, 0 to 50000 ms (default 25000).'),
    }),
    result: ApprovalView.extend({ timedOut: z.boolean() }),
    example: { approvalId: 'apr_0123456789abcdef', timeoutMs: 25000 },
  }),
};
