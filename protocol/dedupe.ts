import { z } from 'zod';

/**
 * A domain-level replay (MethodContract.dedupeBy): a method whose own params field names the act (messaging.send's
 * idempotencyId, a comment's clientMsgId) answers a repeat with the earlier result, marked so in the result
 * itself, over HTTP and MCP alike, so a repeat never reads as a fresh act.
 */
export const replayedField = (field: string) =>
  z
    .literal(true)
    .optional()
    .describe(`Present (true) only when ${field} named an earlier call: this is that call's result and nothing was done again (changed is false).`);
