import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { META_TOOLS } from '../../mcp/meta-tools.js';
import { META } from '../../mcp/results.js';
import { allEvents, type TestServer } from '../helpers/harness.js';
import { connectInMemory, mcpTestServer, structured, toolError, type Connected } from './fixtures.js';

/*
 * Calls through MCP go through the same pipeline as HTTP: results, error codes and messages, scopes,
 * idempotency and the ledger behave the same. SDK Client over InMemoryTransport.
 */

let s: TestServer;
let agent: Connected;
let agentKey: string;
let reader: Connected;

beforeAll(async () => {
  s = await mcpTestServer();
  agentKey = (await s.client.mint({ tier: 'agent' }, 'mcp agent')).apiKey;
  agent = await connectInMemory(s.runtime, agentKey, { toolsets: 'books,board,approval' });
  reader = await connectInMemory(s.runtime, (await s.client.mint({ tier: 'reader' }, 'mcp reader')).apiKey, { toolsets: 'all' });
});
afterAll(async () => {
  await agent.close();
  await reader.close();
  await s.close();
});

const call = (c: Connected, name: string, args: Record<string, unknown> = {}) => c.client.callTool({ name, arguments: args });
const eventsOfKind = async (kind: string) => (await allEvents(s.client)).filter((e) => e.kind === kind);

describe('calling tools', () => {
  it('a tool call runs the method: structuredContent is the result, the text the same JSON, one ledger event', async () => {
    const before = (await s.client.get('snapshot')).body.head.seq;
    const result = await call(agent, 'board_createTask', { title: 'Reconcile October', priority: 'high' });
    const task = structured(result);
    expect(task).toMatchObject({ title: 'Reconcile October', priority: 'high', col: 'triage' });
    expect(task.id).toMatch(/^task_/);
    const events = await allEvents(s.client);
    expect(events.at(-1)).toMatchObject({ seq: before + 1, entity_id: task.id });
    // The HTTP face sees the same row.
    expect((await s.client.get('board.context', { taskId: task.id })).body.task.title).toBe('Reconcile October');
  });

  it('BAD_REQUEST comes back as a tool error naming the field', async () => {
    expect(toolError(await call(agent, 'board_createTask', {}))).toEqual({ code: 'BAD_REQUEST', message: 'title: required' });
    const unknown = toolError(await call(agent, 'board_createTask', { title: 'x', colour: 'red' }));
    expect(unknown.code).toBe('BAD_REQUEST');
    expect(unknown.message).toMatch(/^colour: unknown field/);
    const badKey = toolError(await call(agent, 'board_createTask', { title: 'x', idempotencyKey: 7 }));
    expect(badKey).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/^idempotencyKey:/) });
  });

  it('FORBIDDEN_SCOPE names the scope, whether through the tool or invoke_write', async () => {
    const direct = toolError(await call(reader, 'board_createTask', { title: 'x' }));
    expect(direct).toEqual({ code: 'FORBIDDEN_SCOPE', message: 'missing scope board.write for board.createTask' });
    const viaInvoke = toolError(await call(agent, META_TOOLS.write, { name: 'settings.revokeApiKey', params: { keyId: 'key_x' } }));
    expect(viaInvoke).toEqual({ code: 'FORBIDDEN_SCOPE', message: 'missing scope admin for settings.revokeApiKey' });
  });

  it('a human decision is no tool: approval.resolve is refused over MCP even for a key that holds approval.decide', async () => {
    const admin = await connectInMemory(s.runtime, s.org.adminKey, { toolsets: 'all' });
    try {
      // A key without approval.decide (an agent's) is missing that scope, and is told where a human decides and what to do.
      const byAgent = toolError(await call(agent, META_TOOLS.write, { name: 'approval.resolve', params: { approvalId: 'apr_x', decision: 'approve' } }));
      expect(byAgent.code).toBe('FORBIDDEN_SCOPE');
      expect(byAgent.message).toMatch(
        /^missing scope approval\.decide for approval\.resolve: it records a human's decision, .*approval inbox \(http.*\/approvals\); wait for the decision with approval_wait/,
      );
      expect(toolError(await call(agent, 'approval_resolve', { approvalId: 'apr_x', decision: 'approve' }))).toEqual(byAgent);
      // A key holding it is refused by this server's choice: the tool is not served on this face.
      const byAdmin = toolError(await call(admin, META_TOOLS.write, { name: 'approval.resolve', params: { approvalId: 'apr_x', decision: 'approve' } }));
      expect(byAdmin.code).toBe('NOT_FOUND');
      expect(byAdmin.message).toMatch(
        /^approval\.resolve records a human's decision and is not served over MCP on this server: a human decides in the approval inbox \(http.*\/approvals\)/,
      );
      expect(toolError(await call(admin, 'approval_resolve', { approvalId: 'apr_x', decision: 'approve' })).message).toMatch(/records a human's decision/);
      const found = structured(await call(admin, META_TOOLS.search, { scope: 'approval.decide' }));
      expect(found.matches).toEqual([expect.objectContaining({ name: 'approval.resolve', allowed: false, tool: null })]);
    } finally {
      await admin.close();
    }
  });

  it('a tool outside the session’s selection is refused; an unknown tool is a protocol error', async () => {
    const notSelected = toolError(await call(agent, 'org_list'));
    expect(notSelected.code).toBe('NOT_FOUND');
    expect(notSelected.message).toMatch(/not enabled in this session: its toolset is not selected/);
    await expect(call(agent, 'board_fly')).rejects.toThrow(/Tool board_fly not found/);
  });

  it('an idempotent call retried without a key executes once: the derived key replays the first result', async () => {
    const before = (await eventsOfKind('item.created')).length;
    const first = await call(agent, 'board_createTask', { title: 'Chase supplier statements' });
    const second = await call(agent, 'board_createTask', { title: 'Chase supplier statements' });
    expect(structured(second).id).toBe(structured(first).id);
    expect(first._meta?.[META.replayed]).toBe(false);
    expect(second._meta?.[META.replayed]).toBe(true);
    expect(second._meta?.[META.idempotencyKey]).toBe(first._meta?.[META.idempotencyKey]);
    expect(String(first._meta?.[META.idempotencyKey])).toMatch(/^mcp-[0-9a-f]{64}$/);
    expect((await eventsOfKind('item.created')).length).toBe(before + 1);
    // Key order in the arguments does not matter: canonical JSON.
    const reordered = await call(agent, 'board_createTask', { priority: 'low', title: 'Order test' });
    const again = await call(agent, 'board_createTask', { title: 'Order test', priority: 'low' });
    expect(structured(again).id).toBe(structured(reordered).id);
  });

  it('an explicit idempotencyKey is honoured: same key replays, a new key is a new act', async () => {
    const before = (await eventsOfKind('item.created')).length;
    const a = structured(await call(agent, 'board_createTask', { title: 'Same title', idempotencyKey: 'k-1' }));
    const a2 = structured(await call(agent, 'board_createTask', { title: 'Same title', idempotencyKey: 'k-1' }));
    const b = structured(await call(agent, 'board_createTask', { title: 'Same title', idempotencyKey: 'k-2' }));
    expect(a2.id).toBe(a.id);
    expect(b.id).not.toBe(a.id);
    expect((await eventsOfKind('item.created')).length).toBe(before + 2);
    // The key is shared with HTTP: same org, actor, method and key replays there too.
    const http = await s.client.rpc('board.createTask', { title: 'Same title' }, { key: agentKey, idem: 'k-1' });
    expect(http.body.result.id).toBe(a.id);
    expect(http.headers['idempotent-replay']).toBe('true');
  });

  it('a mutating method that is not idempotent runs on every call and takes no key', async () => {
    const task = structured(await call(agent, 'board_createTask', { title: 'Comment target' }));
    const before = (await allEvents(s.client)).length;
    const c1 = structured(await call(agent, 'board_addTaskComment', { taskId: task.id, body: 'same words' }));
    const c2 = structured(await call(agent, 'board_addTaskComment', { taskId: task.id, body: 'same words' }));
    expect(c2.id).not.toBe(c1.id);
    expect((await allEvents(s.client)).length).toBe(before + 2);
    expect(toolError(await call(agent, 'board_addTaskComment', { taskId: task.id, body: 'x', idempotencyKey: 'k' })).message).toMatch(
      /^idempotencyKey: unknown field/,
    );
  });

  it('reads: a GET read tool answers its bare payload; errors carry the code', async () => {
    const task = structured(await call(agent, 'board_createTask', { title: 'Context me' }));
    const context = structured(await call(agent, 'board_context', { taskId: task.id }));
    expect(context.task.id).toBe(task.id);
    expect(toolError(await call(agent, 'board_context', { taskId: 'task_doesnotexist' })).code).toBe('NOT_FOUND');
  });

  it('a revoked key stops at the next call', async () => {
    const minted = await s.client.mint({ tier: 'agent' }, 'short-lived');
    const c = await connectInMemory(s.runtime, minted.apiKey, { toolsets: 'work' });
    try {
      structured(await call(c, 'board_createTask', { title: 'before revoke' }));
      await s.client.ok('settings.revokeApiKey', { keyId: minted.keyId });
      expect(toolError(await call(c, 'board_createTask', { title: 'after revoke' }))).toMatchObject({ code: 'UNAUTHORIZED' });
      await expect(c.client.listTools()).rejects.toThrow(/UNAUTHORIZED/);
    } finally {
      await c.close();
    }
  });

  it('read-only sessions refuse writes, directly and through invoke_write', async () => {
    const ro = await connectInMemory(s.runtime, agentKey, { readOnly: 'true' });
    try {
      expect(toolError(await call(ro, 'board_createTask', { title: 'nope' })).message).toMatch(/read-only/);
      expect(toolError(await call(ro, META_TOOLS.write, { name: 'board.createTask', params: { title: 'nope' } })).message).toMatch(/not enabled/);
      expect(toolError(await call(ro, META_TOOLS.read, { name: 'board.createTask', params: { title: 'nope' } }))).toMatchObject({
        code: 'BAD_REQUEST',
        message: `name: board.createTask writes; call it with ${META_TOOLS.write}`,
      });
    } finally {
      await ro.close();
    }
  });
});

describe('meta-tools', () => {
  it('search_methods finds any registry method by words, family and scope, and says what is deployed and allowed', async () => {
    const bySearch = structured(await call(agent, META_TOOLS.search, { query: 'invoice send' }));
    expect(bySearch.matches[0]).toEqual({
      name: 'books.invoiceSend',
      scope: 'books.write',
      flags: 'M,I',
      brief: expect.stringMatching(/^Approve and send a draft: DRAFT -> AUTHORISED/),
      allowed: true,
      tool: 'books_invoiceSend',
    });
    // What is served here has its tool; asked to, the search also lists what is not deployed (none is left).
    const served = structured(await call(agent, META_TOOLS.search, { query: 'patch artifact' }));
    expect(served.matches.find((m: any) => m.name === 'artifact.patch')).toMatchObject({
      name: 'artifact.patch',
      scope: 'messaging.write',
      flags: 'R',
      allowed: true,
    });
    expect(served.matches.find((m: any) => m.name === 'artifact.patch').deployed).toBeUndefined();
    const board = structured(await call(agent, META_TOOLS.search, { family: 'board', limit: 100 }));
    expect(board.total).toBe(23 + 2); // 23 methods and 2 reads
    expect(board.matches.find((m: any) => m.name === 'board.createTask')).toMatchObject({ allowed: true, tool: 'board_createTask' });
    const decide = structured(await call(agent, META_TOOLS.search, { scope: 'approval.decide' }));
    expect(decide.matches).toEqual([expect.objectContaining({ name: 'approval.resolve', allowed: false, tool: null })]);
    // Twenty matches stay small: names, scopes, flags and a sentence each.
    const twenty = await call(agent, META_TOOLS.search, { query: 'books', limit: 20 });
    expect(structured(twenty).matches).toHaveLength(20);
    expect(JSON.stringify(twenty.content).length).toBeLessThan(7_000);
    const reads = structured(await call(agent, META_TOOLS.search, { query: 'events' }));
    expect(reads.matches.map((m: any) => m.name)).toContain('events');
    expect(toolError(await call(agent, META_TOOLS.search, { limit: 0 })).message).toMatch(/^limit:/);
  });

  it('describe_method gives the JSON Schema, flags and an example; undeployed methods answer NOT_FOUND honestly', async () => {
    const d = structured(await call(agent, META_TOOLS.describe, { name: 'board_createTask' }));
    expect(d).toMatchObject({ name: 'board.createTask', kind: 'method', scope: 'board.write', flags: 'M,I', allowed: true, tool: 'board_createTask' });
    expect(d.params.properties.title.description).toBeTruthy();
    expect(d).not.toHaveProperty('result');
    expect(d.example).toHaveProperty('title');
    const withResult = structured(await call(agent, META_TOOLS.describe, { name: 'board_createTask', includeResult: true }));
    expect(withResult.result.properties.col.description).toBeTruthy();
    // The largest contract stays readable without its result schema.
    const reports = await call(agent, META_TOOLS.describe, { name: 'books.reports' });
    const reportsWithResult = await call(agent, META_TOOLS.describe, { name: 'books.reports', includeResult: true });
    expect(JSON.stringify(reports.content).length).toBeLessThan(JSON.stringify(reportsWithResult.content).length / 2);
    expect(d.notes.join(' ')).toMatch(/reuse the same idempotency key/);
    const held = structured(await call(agent, META_TOOLS.describe, { name: 'books.payrollSign' }));
    expect(held.notes.join(' ')).toMatch(/Signature act/);
    expect(toolError(await call(agent, META_TOOLS.describe, { name: 'artifact.teleport' })).code).toBe('NOT_FOUND');
  });

  it('invoke_read and invoke_write reach methods outside the toolsets, with the same rules', async () => {
    const orgs = structured(await call(agent, META_TOOLS.read, { name: 'org.list' }));
    expect(orgs.orgs[0]).toMatchObject({ slug: s.org.slug, current: true });
    const page = structured(await call(agent, META_TOOLS.read, { name: 'events', params: { cursor: 0, limit: 2 } }));
    expect(page.events).toHaveLength(2);
    expect(toolError(await call(agent, META_TOOLS.write, { name: 'org.list' }))).toMatchObject({
      code: 'BAD_REQUEST',
      message: `name: org.list is read-only; call it with ${META_TOOLS.read}`,
    });
    expect(toolError(await call(agent, META_TOOLS.write, { name: 'nonsense' })).code).toBe('BAD_REQUEST');
    // Derived idempotency through invoke_write too.
    const w1 = structured(await call(agent, META_TOOLS.write, { name: 'board.createTask', params: { title: 'via invoke' } }));
    const w2 = await call(agent, META_TOOLS.write, { name: 'board.createTask', params: { title: 'via invoke' } });
    expect(structured(w2).id).toBe(w1.id);
    expect(w2._meta?.[META.replayed]).toBe(true);
  });
});

describe('resources', () => {
  it('the ledger resource carries the head and the recent events; an approval is a resource template', async () => {
    const listed = await agent.client.listResources();
    expect(listed.resources.map((r) => r.uri)).toContain('wops://ledger');
    const templates = await agent.client.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toContain('wops://approvals/{approvalId}');
    const ledger = JSON.parse(((await agent.client.readResource({ uri: 'wops://ledger' })).contents[0] as { text: string }).text);
    const snapshot = (await s.client.get('snapshot')).body;
    expect(ledger.head).toEqual(snapshot.head);
    expect(ledger.events.at(-1).row_hash).toBe(snapshot.head.rowHash);
    expect(ledger.events.length).toBe(Math.min(50, snapshot.head.seq));
    await expect(agent.client.readResource({ uri: 'wops://approvals/apr_missing' })).rejects.toThrow(/NOT_FOUND/);
  });
});
