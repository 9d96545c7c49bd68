import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { BenchContext, BenchOrg } from '../fixture.js';
import { rpc } from '../fixture.js';
import { closedLoop, httpLoad, type Throughput } from '../measure.js';

/*
 * Scenario 7: tool calls over MCP Streamable HTTP (POST /mcp, stateless: every POST authenticates, builds the
 * key's server and answers as JSON) against the same calls over plain HTTP (POST /api/v1/<method>).
 *
 * Primary figures: raw JSON-RPC `tools/call` POSTs from autocannon, the same load tool and concurrency as the
 * plain-HTTP figures, so the ratio is the server's cost of the MCP face. A 200 carrying a JSON-RPC error or a
 * tool error (`isError`) counts as a failure and stops the run. Secondary figures: the MCP SDK's own client
 * (Client + StreamableHTTPClientTransport, one connected client per concurrent caller) against plain HTTP
 * from `fetch`, both closed loops in the bench process, which shows what a real agent client adds.
 */

/** One task per org for the read tools to read. */
export async function taskPerOrg(ctx: BenchContext, orgs: BenchOrg[]): Promise<Map<string, string>> {
  const tasks = new Map<string, string>();
  for (const org of orgs) {
    const { body } = await rpc(
      ctx.baseUrl,
      org.key,
      'board.createTask',
      { title: 'MCP bench read target', priority: 'normal' },
      `${ctx.runId}-mcp-target-${org.orgId}`,
    );
    tasks.set(org.orgId, (body.result as { id: string }).id);
  }
  return tasks;
}

/** The bench's tools are the board's: the `work` desk (a session that names none gets the `core` desk). */
const TOOLSETS = { 'x-mcp-toolsets': 'work' };

const MCP_HEADERS = (key: string) => ({
  authorization: `Bearer ${key}`,
  ...TOOLSETS,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
});

/** A tools/call answer that is a success: a JSON-RPC result that is not a tool error. */
const toolSucceeded = (body: string) => body.includes('"result":') && !body.includes('"isError":true');

export interface ToolCallSpec {
  /** MCP tool name, e.g. board_createTask. */
  tool: string;
  /** The same call's method over /api/v1, e.g. board.createTask. */
  method: string;
  /** Arguments of call i (for an I method, `idempotencyKey` is moved to the x-idempotency-key header over HTTP). */
  args(i: number, org: BenchOrg): Record<string, unknown>;
}

function split(args: Record<string, unknown>): { params: Record<string, unknown>; key?: string } {
  const { idempotencyKey, ...params } = args;
  return { params, key: idempotencyKey as string | undefined };
}

export async function toolCallsOverMcp(ctx: BenchContext, orgs: BenchOrg[], spec: ToolCallSpec): Promise<Throughput> {
  return httpLoad(
    ctx.baseUrl,
    {
      method: 'POST',
      path: '/mcp',
      build: (i) => {
        const org = orgs[i % orgs.length];
        return {
          headers: MCP_HEADERS(org.key),
          body: JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: spec.tool, arguments: spec.args(i, org) } }),
        };
      },
      check: toolSucceeded,
    },
    { connections: ctx.connections, seconds: ctx.seconds },
  );
}

export async function sameCallsOverHttp(ctx: BenchContext, orgs: BenchOrg[], spec: ToolCallSpec): Promise<Throughput> {
  return httpLoad(
    ctx.baseUrl,
    {
      method: 'POST',
      path: `/api/v1/${spec.method}`,
      build: (i) => {
        const org = orgs[i % orgs.length];
        const { params, key } = split(spec.args(i, org));
        return {
          headers: { authorization: `Bearer ${org.key}`, 'content-type': 'application/json', ...(key ? { 'x-idempotency-key': key } : {}) },
          body: JSON.stringify({ params }),
        };
      },
      check: (body) => body.startsWith('{"ok":true'),
    },
    { connections: ctx.connections, seconds: ctx.seconds },
  );
}

/** The SDK client: one connected Client per concurrent caller (connected before the clock starts). */
export async function toolCallsWithSdkClient(ctx: BenchContext, orgs: BenchOrg[], spec: ToolCallSpec): Promise<Throughput> {
  const clients = await Promise.all(
    Array.from({ length: ctx.connections }, async (_, w) => {
      const org = orgs[w % orgs.length];
      const transport = new StreamableHTTPClientTransport(new URL(`${ctx.baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${org.key}`, ...TOOLSETS } },
      });
      const client = new Client({ name: 'wops-bench', version: '1.0.0' });
      await client.connect(transport);
      return { client, org };
    }),
  );
  try {
    return await closedLoop(
      async (i) => {
        // Calls share the connected clients round robin (a client may have several calls in flight, as an agent may).
        const mine = clients[i % clients.length];
        const result = await mine.client.callTool({ name: spec.tool, arguments: spec.args(i, mine.org) });
        if (result.isError) throw new Error(`${spec.tool}: ${JSON.stringify(result.content).slice(0, 300)}`);
      },
      { workers: ctx.connections, seconds: ctx.seconds },
    );
  } finally {
    await Promise.all(clients.map(({ client }) => client.close().catch(() => {})));
  }
}

/** Plain HTTP from fetch in the same process: the SDK client's baseline. */
export async function sameCallsWithFetch(ctx: BenchContext, orgs: BenchOrg[], spec: ToolCallSpec): Promise<Throughput> {
  return closedLoop(
    async (i) => {
      const org = orgs[i % orgs.length];
      const { params, key } = split(spec.args(i, org));
      await rpc(ctx.baseUrl, org.key, spec.method, params, key);
    },
    { workers: ctx.connections, seconds: ctx.seconds },
  );
}
