import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { META_TOOLS } from '../../mcp/meta-tools.js';
import { allEvents, type TestServer } from '../helpers/harness.js';
import { connectInMemory, mcpHttpTestServer, toolError, type Connected } from './fixtures.js';

/*
 * Defect 6: hostile tool arguments. 10,000 levels of nesting answered INTERNAL (the derived idempotency key
 * canonicalised them, recursively, before anything validated them); 20,000 unknown keys made a 149 KB message.
 * Every face now refuses depth by the field's path before anything walks the value, and lists at most ten
 * unknown names.
 */

let s: TestServer;
let agent: Connected;
let agentKey: string;
beforeAll(async () => {
  s = await mcpHttpTestServer();
  agentKey = (await s.client.mint({ tier: 'agent' }, 'hostile agent')).apiKey;
  agent = await connectInMemory(s.runtime, agentKey, { toolsets: 'all' });
});
afterAll(async () => {
  await agent.close();
  await s.close();
});

/** `{"a":{"a":…"bottom"…}}` as text: JSON.stringify itself overflows the stack on such a value. */
const nestedText = (depth: number) => `${'{"a":'.repeat(depth)}"bottom"${'}'.repeat(depth)}`;
const nested = (depth: number) => JSON.parse(nestedText(depth)) as unknown;
const manyKeys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 1]));

const DEEP = /^deep\.a\.a\.a\.a\.a\.a\.a\.…\(\d+ levels\): nested more than 64 levels deep$/;
const call = (name: string, args: Record<string, unknown>) => agent.client.callTool({ name, arguments: args });

describe('10,000 levels of nesting', () => {
  it('a typed tool whose key is derived from the params (board_createTask): BAD_REQUEST naming the path, no event', async () => {
    const before = (await allEvents(s.client)).length;
    const error = toolError(await call('board_createTask', { title: 'deep', deep: nested(10_000) }));
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toMatch(DEEP);
    expect((await allEvents(s.client)).length).toBe(before);
  });

  it('invoke_write and invoke_read: BAD_REQUEST naming the path inside params, as every face names fields', async () => {
    const write = toolError(await call(META_TOOLS.write, { name: 'board.createTask', params: { title: 'deep', deep: nested(10_000) } }));
    expect(write).toEqual({
      code: 'BAD_REQUEST',
      message: expect.stringMatching(/^deep\.a\.a\.a\.a\.a\.a\.a\.…\(\d+ levels\): nested more than 64 levels deep$/),
    });
    const read = toolError(await call(META_TOOLS.read, { name: 'board.taskComments', params: { deep: nested(10_000) } }));
    expect(read).toEqual({ code: 'BAD_REQUEST', message: expect.stringMatching(/^deep\..*: nested more than 64 levels deep$/) });
  });

  it('over Streamable HTTP, as raw JSON-RPC: a tool error, never INTERNAL', async () => {
    const body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"board_createTask","arguments":{"title":"deep","deep":${nestedText(10_000)}}}}`;
    const res = await s.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: {
        authorization: `Bearer ${agentKey}`,
        'x-mcp-toolsets': 'work',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      payload: body,
    });
    expect(res.statusCode).toBe(200);
    const error = toolError(res.json().result);
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toMatch(DEEP);
  });

  it('over HTTP /api/v1: BAD_REQUEST naming the path', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/api/v1/board.createTask',
      headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json' },
      payload: `{"params":{"title":"deep","deep":${nestedText(10_000)}}}`,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toEqual({ code: 'BAD_REQUEST', message: expect.stringMatching(DEEP) });
  });

  it('64 levels are still accepted as far as depth goes (the contract then judges them)', async () => {
    const error = toolError(await call('board_createTask', { title: 'deep', deep: nested(63) }));
    expect(error).toEqual({ code: 'BAD_REQUEST', message: 'deep: unknown field' });
  });
});

describe('20,000 unknown keys', () => {
  const bounded = (message: string) => {
    expect(message.length).toBeLessThan(1024);
    expect(message).toBe('k0, k1, k2, k3, k4, k5, k6, k7, k8, k9 and 19990 more: unknown fields');
  };

  it('over HTTP: ten names and a count, under 1 KB', async () => {
    const res = await s.client.rpc('org.list', manyKeys(20_000));
    expect(res.status).toBe(400);
    bounded(res.body.error.message);
  });

  it('over MCP: a typed tool and a meta-tool alike', async () => {
    bounded(toolError(await call('board_createTask', { title: 'x', ...manyKeys(20_000) })).message);
    const meta = toolError(await call(META_TOOLS.search, { query: 'x', ...manyKeys(20_000) }));
    expect(meta.message.length).toBeLessThan(1024);
    expect(meta.message).toMatch(/^k0, k1, .* and 19990 more: unknown fields$/);
  });

  it('long names are cut to 40 characters', async () => {
    const res = await s.client.rpc('org.list', { ['x'.repeat(10_000)]: 1 });
    expect(res.body.error.message).toBe(`${'x'.repeat(40)}…: unknown field`);
  });
});
