import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { METHOD_HANDLERS, READ_HANDLERS } from '../../domain/deployed.js';
import { META_TOOLS } from '../../mcp/meta-tools.js';
import { toolNameFor } from '../../mcp/catalog.js';
import { head } from '../helpers/calls.js';
import { cleanPrototype, getAt, pathsOf, pollutedNames, RESERVED, RESERVED_MESSAGE, setAt, withKey, type Path } from '../helpers/hostile.js';
import type { TestServer } from '../helpers/harness.js';
import { connectInMemory, mcpHttpTestServer, toolError, type Connected } from '../mcp/fixtures.js';

/**
 * Prototype pollution, the class: a reserved key (__proto__, constructor, prototype) at the top of any deployed
 * method's params or nested inside them is refused by name, over HTTP (the body parser), in the pipeline itself
 * (what SCIM, books.ask's toolbox and every other inner caller use) and over MCP, before any handler can merge
 * or assign it; nothing reaches Object.prototype and nothing is appended.
 */

let s: TestServer;
let mcp: Connected;
beforeAll(async () => {
  s = await mcpHttpTestServer();
  mcp = await connectInMemory(s.runtime, s.org.adminKey, { toolsets: 'all' });
});
afterEach(() => {
  expect(cleanPrototype(), 'Object.prototype gained names').toEqual([]);
});
afterAll(async () => {
  await mcp.close();
  await s.close();
});

const HOSTILE = { polluted: 'yes' };
const at = (path: Path, key: string) => [...path, key].join('.');

/** Where a method's reserved keys go: the top, and inside the deepest object its example has (else a new field). */
function sites(example: Record<string, unknown>): Path[] {
  const objects = pathsOf(example).filter(
    (p) => p.length > 0 && getAt(example, p) !== null && typeof getAt(example, p) === 'object' && !Array.isArray(getAt(example, p)),
  );
  const deepest = objects.sort((a, b) => b.length - a.length)[0] ?? ['nested'];
  return [[], deepest];
}

const hostile = (example: Record<string, unknown>, path: Path, key: string) =>
  setAt(example, path, withKey(path.length ? (getAt(example, path) ?? {}) : example, key, HOSTILE));

describe('every deployed method refuses reserved keys in its params', () => {
  it.each([...METHOD_HANDLERS.keys()].sort())('%s', async (name) => {
    const example = (METHOD_HANDLERS.get(name)!.contract.example ?? {}) as Record<string, unknown>;
    const cases = sites(example).flatMap((path, i) =>
      (path.length ? [RESERVED[i % RESERVED.length], RESERVED[(i + 1) % RESERVED.length]] : RESERVED).map((key) => ({
        path,
        key,
        params: hostile(example, path, key),
      })),
    );
    const seq = await head(s.client);
    for (const { path, key, params } of cases) {
      const http = await s.client.raw(name, JSON.stringify({ params }));
      expect(http.status, http.raw).toBe(400);
      expect(http.body.error).toEqual({ code: 'BAD_REQUEST', message: `body.params.${at(path, key)}: ${RESERVED_MESSAGE}` });
      const inner = await s.runtime.pipeline.call({ method: name, params, apiKey: s.org.adminKey });
      expect(inner.status, inner.body).toBe(400);
      expect(JSON.parse(inner.body).error).toEqual({ code: 'BAD_REQUEST', message: `${at(path, key)}: ${RESERVED_MESSAGE}` });
    }
    expect(await head(s.client)).toBe(seq);
    // MCP: the SDK's own argument validation (zod) drops a "__proto__" key before the server sees it, so that
    // call runs as if it were absent; constructor and prototype reach the pipeline and are refused by name.
    for (const { path, key, params } of cases.filter((c) => c.key !== '__proto__')) {
      const tool = toolError(await mcp.client.callTool({ name: META_TOOLS.write, arguments: { name, params } }));
      // A read (R) method is refused by invoke_write before its params are looked at; its params meet invoke_read.
      let answer = tool.message.includes('invoke_read') ? toolError(await mcp.client.callTool({ name: META_TOOLS.read, arguments: { name, params } })) : tool;
      // An MCP App's tool (artifact.act) is refused by invoke_write; the page calls the tool itself, so this does too.
      if (/for an MCP App's page/.test(answer.message))
        answer = toolError(await mcp.client.callTool({ name: toolNameFor(name), arguments: params as Record<string, unknown> }));
      // A method MCP does not serve (approval.resolve: a human decides) is refused before its params are read.
      if (/not served over MCP/.test(answer.message)) continue;
      expect(answer).toEqual({ code: 'BAD_REQUEST', message: `${at(path, key)}: ${RESERVED_MESSAGE}` });
    }
  });
});

describe('every deployed read refuses reserved keys in its query', () => {
  it.each([...READ_HANDLERS.keys()].filter((p) => !p.includes('{')).sort())('GET %s', async (path) => {
    for (const key of ['constructor', 'prototype']) {
      const res = await s.client.get(path, { [key]: 'x' });
      expect(res.status, res.raw).toBe(400);
      expect(res.body.error).toEqual({ code: 'BAD_REQUEST', message: `${key}: ${RESERVED_MESSAGE}` });
    }
    // "__proto__" in a query string: refused by name, or dropped by the query parser; never assigned.
    const proto = await s.app.inject({
      method: 'GET',
      url: `/api/v1/${path}?__proto__[polluted]=yes&__proto__=x`,
      headers: { authorization: `Bearer ${s.org.adminKey}` },
    });
    expect(proto.statusCode).not.toBe(500);
    expect(pollutedNames()).toEqual([]);
  });
});

describe('the faces', () => {
  it('HTTP: a reserved key in any JSON body is refused before a route runs, even one that reads no params', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/api/v1/member.list',
      headers: { authorization: `Bearer ${s.org.adminKey}`, 'content-type': 'application/json' },
      payload: '{"__proto__":{"polluted":"yes"}}',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toEqual({ code: 'BAD_REQUEST', message: `body.__proto__: ${RESERVED_MESSAGE}` });
    const join = await s.app.inject({
      method: 'POST',
      url: '/join',
      headers: { 'content-type': 'application/json' },
      payload: '{"a":[{"constructor":{"prototype":{"polluted":"yes"}}}]}',
    });
    expect(join.statusCode).toBe(400);
    expect(join.json().error.message).toBe(`body.a.0.constructor: ${RESERVED_MESSAGE}`);
  });

  it('MCP over Streamable HTTP: the JSON-RPC body is refused by name at the HTTP parser', async () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"invoke_read","arguments":{"name":"member.list","params":{"__proto__":{"polluted":"yes"}}}}}`;
    const res = await s.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { authorization: `Bearer ${s.org.adminKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: body,
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain(`body.params.arguments.params.__proto__: ${RESERVED_MESSAGE}`);
  });

  it('after all of it: whoami answers and an org call works', async () => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await s.client.get('org/whoami')).status).toBe(200);
    expect((await s.client.rpc('member.list', { limit: 1 })).status).toBe(200);
  });
});
