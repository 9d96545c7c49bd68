import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mcpHttp } from '../../mcp/http.js';
import { META_TOOLS } from '../../mcp/meta-tools.js';
import { META } from '../../mcp/results.js';
import { allEvents, type TestServer } from '../helpers/harness.js';
import { payRunState, mcpHttpTestServer, mcpTestServer, payRuns, structured, toolError } from './fixtures.js';

/*
 * Streamable HTTP at /mcp on a running gateway (a real socket), with the SDK's client transport. The plugin
 * is registered the way cli/serve.ts registers it.
 */

const PUBLIC_URL = 'http://wops.test:8080';
let s: TestServer;
let base: string;
let agentKey: string;
let approverKey: string;

beforeAll(async () => {
  s = await mcpHttpTestServer({ config: { publicUrl: PUBLIC_URL } });
  base = await s.app.listen({ port: 0, host: '127.0.0.1' });
  agentKey = (await s.client.mint({ tier: 'agent' }, 'http agent')).apiKey;
  approverKey = (await s.client.mint({ tier: 'approver' }, 'http approver')).apiKey;
});
afterAll(() => s.close());

let runs: ReturnType<typeof payRuns> | undefined;
const nextPayRun = () => (runs ??= payRuns(s))();

async function connect(key: string, headers: Record<string, string> = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}`, ...headers } },
  });
  const client = new Client({ name: 'http-agent', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const post = (headers: Record<string, string>, body: unknown = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) =>
  fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });

describe('MCP over Streamable HTTP', () => {
  it('answers 401 with the protected-resource metadata header, and serves that metadata', async () => {
    const missing = await post({});
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${PUBLIC_URL}/.well-known/oauth-protected-resource"`);
    expect(((await missing.json()) as any).error.code).toBe('UNAUTHORIZED');
    const invalid = await post({ authorization: 'Bearer wops_not_a_key' });
    expect(invalid.status).toBe(401);
    expect(invalid.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const meta = (await (await fetch(`${base}${path}`)).json()) as any;
      expect(meta).toMatchObject({ resource: `${PUBLIC_URL}/mcp`, bearer_methods_supported: ['header'] });
      expect(meta.scopes_supported).toContain('books.write');
    }
    const client = new Client({ name: 'no-key', version: '1' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)))).rejects.toThrow();
  });

  it('stateless: GET and DELETE on /mcp are 405; a bad toolset header is BAD_REQUEST', async () => {
    const get = await fetch(`${base}/mcp`, { headers: { authorization: `Bearer ${agentKey}`, accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const bad = await post({ authorization: `Bearer ${agentKey}`, 'x-mcp-toolsets': 'bookz' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/unknown toolset "bookz"/) });
    // A desk with nothing deployed is refused the same way (tests/mcp/tools-list.test.ts; every desk has tools here now).
  });

  it("a browser Origin must be this server's own (PUBLIC_URL) or configured; no Origin is fine (DNS rebinding)", async () => {
    const auth = { authorization: `Bearer ${agentKey}` };
    const foreign = await post({ ...auth, origin: 'http://evil.example:8080' });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as any).error.message).toMatch(
      /^Forbidden: Origin http:\/\/evil\.example:8080 may not call \/mcp \(allowed: http:\/\/wops\.test:8080; set MCP_ALLOWED_ORIGINS/,
    );
    // The attacker's name in Host does not make it same-origin.
    const rebound = await fetch(`${base}/mcp`, { method: 'GET', headers: { ...auth, origin: 'http://evil.example:8080', host: 'evil.example:8080' } });
    expect(rebound.status).toBe(403);
    expect((await post({ ...auth, origin: PUBLIC_URL })).status).toBe(200);
    expect((await post(auth)).status).toBe(200);
    // A configured origin, on another gateway with the plugin registered as cli/serve.ts does with MCP_ALLOWED_ORIGINS.
    const other = await mcpTestServer({ config: { publicUrl: 'http://localhost:8080' } });
    try {
      await other.app.register(mcpHttp, { pipeline: other.runtime.pipeline, allowedOrigins: ['https://app.example.com'] });
      const inject = (origin: string) =>
        other.app.inject({
          method: 'POST',
          url: '/mcp',
          headers: { authorization: `Bearer ${other.org.adminKey}`, origin, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          payload: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
        });
      expect((await inject('https://app.example.com')).statusCode).toBe(200);
      // A loopback PUBLIC_URL accepts the other loopback names on its port, and nothing else.
      expect((await inject('http://127.0.0.1:8080')).statusCode).toBe(200);
      expect((await inject('http://127.0.0.1:9999')).statusCode).toBe(403);
      expect((await inject('https://app.example.com.evil.test')).statusCode).toBe(403);
    } finally {
      await other.close();
    }
  });

  it('lists scope-filtered tools; toolsets and read-only come from headers; instructions explain holds', async () => {
    const core = await connect(agentKey);
    expect((await core.listTools()).tools.map((t) => t.name)).toEqual([
      'approval_get',
      'approval_list',
      'approval_wait',
      'org_whoami',
      ...Object.values(META_TOOLS),
    ]);
    await core.close();
    const agent = await connect(agentKey, { 'x-mcp-toolsets': 'work,payroll' });
    const names = (await agent.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['board_createTask', 'books_payrollSign', 'approval_wait', META_TOOLS.write]));
    expect(names).not.toContain('approval_resolve');
    expect(agent.getInstructions()).toMatch(/approval_required/);
    await agent.close();

    // A human's key in an LLM's session still lists no decision: the inbox and HTTP are where humans decide.
    const approver = await connect(approverKey, { 'x-mcp-toolsets': 'approval' });
    const approverTools = (await approver.listTools()).tools.map((t) => t.name);
    expect(approverTools).not.toContain('approval_resolve');
    expect(approverTools).not.toContain('board_createTask');
    await approver.close();

    const ro = await connect(agentKey, { 'x-mcp-toolsets': 'all', 'x-mcp-readonly': 'true', 'x-mcp-exclude-tools': 'board_context' });
    const roTools = (await ro.listTools()).tools;
    expect(roTools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
    expect(roTools.map((t) => t.name)).toEqual(expect.arrayContaining(['board_ready', 'org_whoami', 'events']));
    expect(roTools.map((t) => t.name)).not.toContain('board_context');
    await ro.close();
  });

  it('calls, errors and an idempotent retry without a key that executes once', async () => {
    const agent = await connect(agentKey, { 'x-mcp-toolsets': 'work' });
    const before = (await allEvents(s.client)).filter((e) => e.kind === 'item.created').length;
    const first = await agent.callTool({ name: 'board_createTask', arguments: { title: 'Over HTTP' } });
    const retry = await agent.callTool({ name: 'board_createTask', arguments: { title: 'Over HTTP' } });
    expect(structured(retry).id).toBe(structured(first).id);
    expect(retry._meta?.[META.replayed]).toBe(true);
    expect((retry.content as { text: string }[])[0].text).toMatch(/^Replayed: a call with idempotencyKey mcp-[0-9a-f]{64} already ran/);
    expect((await allEvents(s.client)).filter((e) => e.kind === 'item.created').length).toBe(before + 1);
    expect(toolError(await agent.callTool({ name: 'board_createTask', arguments: { title: '' } }))).toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/^title: /),
    });
    expect(toolError(await agent.callTool({ name: META_TOOLS.write, arguments: { name: 'org.create', params: { slug: 'x-y', name: 'x' } } }))).toEqual({
      code: 'FORBIDDEN_SCOPE',
      message: 'missing scope admin for org.create',
    });
    await agent.close();
  });

  it('authenticates each request once, so a revoked key is 401 at its next request', async () => {
    const minted = await s.client.mint({ tier: 'agent' }, 'http revoked');
    const createTask = (id: number) =>
      post(
        { authorization: `Bearer ${minted.apiKey}`, 'x-mcp-toolsets': 'work' },
        { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'board_createTask', arguments: { title: 'Once' } } },
      );
    const queries = vi.spyOn(s.runtime.db, 'query');
    try {
      const created = (await (await createTask(1)).json()) as any;
      expect(created.result.structuredContent.id).toEqual(expect.any(String));
      expect(queries.mock.calls.filter(([sql]) => sql.includes('api_keys'))).toHaveLength(1);
    } finally {
      queries.mockRestore();
    }
    await s.client.ok('settings.revokeApiKey', { keyId: minted.keyId });
    expect((await createTask(2)).status).toBe(401);
  });

  it('the whole signature flow: hold, filed approval, human approval, wait, retry with proof, executed', async () => {
    const run = await nextPayRun();
    const agent = await connect(agentKey, { 'x-mcp-toolsets': 'payroll' });
    const hold = structured(await agent.callTool({ name: 'books_payrollSign', arguments: { runId: run.id } }));
    expect(hold).toMatchObject({ status: 'approval_required', approvalStatus: 'pending', subjectId: run.id, elicitation: null });
    expect(hold.url).toBe(`${PUBLIC_URL}/approvals/${hold.approvalId}`);
    expect(hold.message).toMatch(/^Held, not executed: .* The server already filed the approval for you\./);
    expect(toolError(await agent.callTool({ name: 'books_payrollSign', arguments: { runId: run.id, approvalId: hold.approvalId } })).message).toMatch(
      /^Not executed: approval apr_\w+ is still pending a human decision .* Call approval_wait/,
    );

    const wait = agent.callTool({ name: 'approval_wait', arguments: { approvalId: hold.approvalId, timeoutMs: 20000 } });
    await new Promise((r) => setTimeout(r, 100));
    await s.client.ok('approval.resolve', { approvalId: hold.approvalId, decision: 'approve' }, { key: approverKey });
    const decided = structured(await wait);
    expect(decided).toMatchObject({ status: 'approved', timedOut: false });
    expect(decided.next).toContain(`Now call books_payrollSign with ${JSON.stringify({ runId: run.id, approvalId: hold.approvalId })}`);

    const done = structured(await agent.callTool({ name: 'books_payrollSign', arguments: { runId: run.id, approvalId: hold.approvalId } }));
    expect(done).toMatchObject({ payRun: { id: run.id, status: 'POSTED' }, approvalId: hold.approvalId });
    expect(await payRunState(s, run.id)).toMatch(/^POSTED\/jnl_/);
    const kinds = (await allEvents(s.client)).filter((e) => e.entity_id === run.id || e.payload?.subjectId === run.id).map((e) => e.kind);
    expect(kinds).toEqual(['books.payroll.draft', 'books.signature.hold', 'approval.request.create', 'approval.request.approve', 'books.payroll.sign']);
    await agent.close();
  });

  it('a client gone before its answer aborts the call it left running', async () => {
    const run = await nextPayRun();
    const held = await post(
      { authorization: `Bearer ${agentKey}`, 'x-mcp-toolsets': 'payroll' },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'books_payrollSign', arguments: { runId: run.id } } },
    );
    const { approvalId } = ((await held.json()) as any).result.structuredContent;
    const reads = vi.spyOn(s.runtime.pipeline, 'read');
    try {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'approval_wait', arguments: { approvalId, timeoutMs: 20000 } },
      });
      const headers = { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const waiting = request(`${base}/mcp`, { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) } }).on('error', () => {});
      waiting.end(body);
      await vi.waitFor(() => expect(reads).toHaveBeenCalled());
      waiting.destroy();
      await vi.waitFor(() => expect(reads.mock.calls[0][0].signal?.aborted).toBe(true));
    } finally {
      reads.mockRestore();
    }
  });
});
