import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { Runtime } from '../../domain/deployed.js';
import { mcpHttp } from '../../mcp/http.js';
import { createMcpServer } from '../../mcp/server.js';
import { META_TOOL_NAMES } from '../../mcp/meta-tools.js';
import { parseSelection, type SelectionInput } from '../../mcp/toolsets.js';
import { testServer, type TestServer } from '../helpers/harness.js';
import { fileAndApprove } from '../helpers/calls.js';
import { BANK, CONTRACT, RATE, SUPER, TFN } from '../domain/books/payroll-kit.js';
import { one } from '../../db/types.js';

/** Runtime + gateway + fresh org: the whole books family deployed, so the signature acts are the real ones. */
export function mcpTestServer(opts: { rateLimitPerMinute?: number; config?: { publicUrl?: string } } = {}): Promise<TestServer> {
  return testServer(opts);
}

/** mcpTestServer with the Streamable HTTP face at /mcp as well (the server's own options). */
export async function mcpHttpTestServer(opts: Parameters<typeof mcpTestServer>[0] = {}): Promise<TestServer> {
  const s = await mcpTestServer(opts);
  await s.app.register(mcpHttp, { pipeline: s.runtime.pipeline });
  return s;
}

export interface DraftRun {
  id: string;
  netCents: number;
  status: string;
}

/**
 * Real DRAFT pay runs for books.payrollSign: the first call hires one employee through the HTTP API (her
 * contract step is itself a signature act, approved by the org's admin), each call drafts the next fortnight.
 */
export function payRuns(s: TestServer): () => Promise<DraftRun> {
  let hired: Promise<void> | undefined;
  let fortnight = 0;
  const day = (offset: number) => new Date(Date.UTC(2026, 9, 1) + offset * 86_400_000).toISOString().slice(0, 10);
  async function hire() {
    const hr = (await s.client.mint({ tier: 'agent' }, 'hr agent')).apiKey;
    const id = (await s.client.ok('books.onboardingStart', { person: 'Jane Citizen', role: 'Bookkeeper', startDate: day(0), rate: RATE })).onboarding.id;
    for (const [step, data] of [
      ['tfn', TFN],
      ['super', SUPER],
      ['bank', BANK],
    ] as const)
      await s.client.ok('books.onboardingAdvance', { id, step, data });
    const contract = { id, step: 'contract', data: CONTRACT };
    const held = await s.client.ok('books.onboardingAdvance', contract, { key: hr });
    const approvalId = await fileAndApprove(s.client, held.approval, { requester: hr });
    await s.client.ok('books.onboardingAdvance', { ...contract, approvalId }, { key: hr });
  }
  return async () => {
    hired ??= hire();
    await hired;
    const first = 14 * fortnight++;
    const period = { periodStart: day(first), periodEnd: day(first + 13), payDate: day(first + 14) };
    return (await s.client.ok('books.payrollDraft', period)).payRun as DraftRun;
  };
}

/** What a held payrollSign must leave as it was: the run's status and journal, and how many journals the org has. */
export async function payRunState(s: TestServer, runId: string): Promise<string> {
  const run = one(
    await s.runtime.db.query<{ status: string; journal_id: string | null }>('SELECT status, journal_id FROM books_pay_runs WHERE org_id = $1 AND run_id = $2', [
      s.org.orgId,
      runId,
    ]),
  );
  const journals = one(await s.runtime.db.query<{ n: string }>('SELECT count(*) AS n FROM books_journals WHERE org_id = $1', [s.org.orgId]));
  return `${run.status}/${run.journal_id}/${journals.n}`;
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
  opts: { humanDecisions?: boolean } = {},
): Promise<Connected> {
  const principal = await runtime.pipeline.principalFor(apiKey);
  const server = createMcpServer({ pipeline: runtime.pipeline, apiKey, principal, selection: parseSelection(selection, META_TOOL_NAMES), ...opts });
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
  // The JSON is the last text; a replay says so first, in words (results.ts replayNote).
  const first = (result.content as { type: string; text: string }[]).at(-1)!;
  if (JSON.stringify(JSON.parse(first.text)) !== JSON.stringify(result.structuredContent)) {
    throw new Error('text content differs from structuredContent');
  }
  return result.structuredContent as T;
}
