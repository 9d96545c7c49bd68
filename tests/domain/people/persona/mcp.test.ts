import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mcpHttp } from '../../../../mcp/http.js';
import { META_TOOL_NAMES } from '../../../../mcp/meta-tools.js';
import { sessionSelection } from '../../../../mcp/persona.js';
import { createMcpServer } from '../../../../mcp/server.js';
import { parseSelection, type SelectionInput } from '../../../../mcp/toolsets.js';
import { testServer, type TestServer } from '../../../helpers/harness.js';

/* MCP: an agent's persona toolsets pick the tools its session lists when the session names no desk. */

let s: TestServer;
let base: string;
let personaKey: string;
let bareKey: string;
beforeAll(async () => {
  s = await testServer();
  await s.app.register(mcpHttp, { pipeline: s.runtime.pipeline });
  base = await s.app.listen({ port: 0, host: '127.0.0.1' });
  const sponsorId = (await s.client.get('org/whoami')).body.principal.id;
  const gen = await s.client.ok('persona.generateAgentId', {
    name: 'Desk Bot',
    role: 'Clerk',
    goal: 'Pay bills',
    toolsets: ['books.payables', 'board', 'crm'],
    sponsorId,
  });
  personaKey = (await s.client.ok('settings.mintApiKey', { name: 'desk bot key', tier: 'agent', principalId: gen.agent.id })).apiKey;
  bareKey = (await s.client.mint({ tier: 'agent' }, 'bare agent')).apiKey;
});
afterAll(() => s.close());

/** The in-memory pair the faces build: the key's principal, its session selection, the server. */
async function inMemory(apiKey: string, input: SelectionInput = {}) {
  const principal = await s.runtime.pipeline.principalFor(apiKey);
  const selection = await sessionSelection(s.runtime.pipeline, principal, parseSelection(input, META_TOOL_NAMES));
  const server = createMcpServer({ pipeline: s.runtime.pipeline, apiKey, principal, selection });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'persona-agent', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}
const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);

describe('persona toolsets in MCP', () => {
  it('no desk named: the persona toolsets and the core tools (an undeployed toolset lists nothing, refused never)', async () => {
    const client = await inMemory(personaKey);
    const tools = await names(client);
    expect(tools).toEqual(expect.arrayContaining(['books_billCapture', 'books_billApprove', 'board_createTask', 'board_claim', 'org_whoami', 'approval_wait']));
    expect(tools).not.toContain('books_invoiceDraft');
    expect(tools).not.toContain('books_payrollSign');
    const who = (await client.callTool({ name: 'org_whoami', arguments: {} })).structuredContent as any;
    expect(who.persona.toolsets).toEqual(['books.payables', 'board', 'crm']);
    await client.close();
  });

  it('a desk named wins over the persona; an agent without a persona keeps the default desk', async () => {
    const named = await inMemory(personaKey, { toolsets: 'core' });
    expect(await names(named)).not.toContain('books_billCapture');
    await named.close();
    const bare = await inMemory(bareKey);
    const tools = await names(bare);
    expect(tools).toContain('org_whoami');
    expect(tools).not.toContain('board_createTask');
    await bare.close();
  });

  it('over Streamable HTTP: no x-mcp-toolsets header -> the persona toolsets', async () => {
    const connect = async (headers: Record<string, string>) => {
      const client = new Client({ name: 'http-persona', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${personaKey}`, ...headers } } }),
      );
      return client;
    };
    const plain = await connect({});
    expect(await names(plain)).toContain('books_billCapture');
    await plain.close();
    const work = await connect({ 'x-mcp-toolsets': 'work' });
    expect(await names(work)).not.toContain('books_billCapture');
    await work.close();
  });
});
