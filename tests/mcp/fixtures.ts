import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { method } from '../../protocol/contract.js';
import { proofFields } from '../../protocol/schema.js';
import { handler, type MethodHandler } from '../../domain/handler.js';
import type { Runtime } from '../../domain/runtime.js';
import { createMcpServer } from '../../mcp/server.js';
import { META_TOOL_NAMES } from '../../mcp/meta-tools.js';
import { parseSelection, type SelectionInput } from '../../mcp/toolsets.js';
import { testServer, type TestServer } from '../helpers/harness.js';

/*
 * A stand-in for the signature act books.payrollSign, registered through createRuntime's extraHandlers as
 * tests/domain/approval/signature-flow.test.ts does (the books family lands in its own issue and will
 * replace it). It writes a marker row before asking for proof, so a hold must undo it.
 */
const payrollSignContract = method({
  summary: 'Sign a drafted pay run (stand-in for the books family).',
  params: z.strictObject({
    runId: z.string().max(64).describe('The pay run to sign.'),
    amountCents: z.number().int().describe('Net pay of the run, in cents.'),
    ...proofFields,
  }),
  result: z.strictObject({ runId: z.string(), status: z.literal('POSTED'), ledgerId: z.string() }),
  example: { runId: 'run_1', amountCents: 100 },
});

export const payrollSign = handler(
  payrollSignContract,
  async (ctx, p) => {
    await ctx.q.query('INSERT INTO principals (org_id, principal_id, kind, name) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [
      ctx.orgId,
      markerId(p.runId),
      'agent',
      'marker',
    ]);
    const proof = await ctx.requireSignature({ actionClass: 'books.payroll_sign', subjectId: p.runId, summary: `Pay run ${p.runId}`, params: p });
    const event = await ctx.emit('books.payroll.sign', p.runId, { runId: p.runId, approvalId: proof.approvalId });
    return { runId: p.runId, status: 'POSTED' as const, ledgerId: event.ledgerId };
  },
  { mayHold: true },
);

export const markerId = (runId: string) => `agt_marker${runId.replace(/\W/g, '')}`;

export const EXTRA_HANDLERS = new Map<string, MethodHandler>([['books.payrollSign', payrollSign as unknown as MethodHandler]]);

/** Runtime + gateway + fresh org, with the stand-in signature act deployed. */
export function mcpTestServer(opts: { rateLimitPerMinute?: number; config?: { publicUrl?: string } } = {}): Promise<TestServer> {
  return testServer({ extraHandlers: EXTRA_HANDLERS, ...opts });
}

export interface Connected {
  client: Client;
  close(): Promise<void>;
}

/** An SDK Client connected over InMemoryTransport to an MCP server for `apiKey`. */
export async function connectInMemory(
  runtime: Runtime,
  apiKey: string,
  selection: SelectionInput = {},
  capabilities: ClientCapabilities = {},
): Promise<Connected> {
  const principal = await runtime.pipeline.principalFor(apiKey);
  const server = createMcpServer({ pipeline: runtime.pipeline, apiKey, principal, selection: parseSelection(selection, META_TOOL_NAMES) });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'vitest-agent', version: '1.0.0' }, { capabilities });
  await client.connect(clientSide);
  return {
    client,
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/** The spec's error frame carried in a tool error's text. */
export function toolError(raw: unknown): { code: string; message: string } {
  const result = raw as { isError?: boolean; content?: unknown };
  if (!result.isError) throw new Error(`expected a tool error, got ${JSON.stringify(result)}`);
  const [first] = result.content as { type: string; text: string }[];
  return (JSON.parse(first.text) as { error: { code: string; message: string } }).error;
}

/** A successful tool result's structuredContent, checked to equal its text. */
export function structured<T = any>(raw: unknown): T {
  const result = raw as { isError?: boolean; content?: unknown; structuredContent?: unknown };
  if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.content)}`);
  const [first] = result.content as { type: string; text: string }[];
  if (JSON.stringify(JSON.parse(first.text)) !== JSON.stringify(result.structuredContent)) {
    throw new Error('text content differs from structuredContent');
  }
  return result.structuredContent as T;
}
