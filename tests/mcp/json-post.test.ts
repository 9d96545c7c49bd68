import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { JsonPostTransport } from '../../mcp/json-post.js';
import { createMcpServer } from '../../mcp/server.js';
import type { TestServer } from '../helpers/harness.js';
import { mcpTestServer } from './fixtures.js';

/*
 * The JSON POST transport held against the SDK's own stateless JSON transport (WebStandardStreamableHTTPServerTransport
 * with enableJsonResponse): each request through each, on a fresh server each time, gets the same status and body.
 */

let s: TestServer;
let key: string;
beforeAll(async () => {
  s = await mcpTestServer();
  key = (await s.client.mint({ tier: 'agent' }, 'json post')).apiKey;
});
afterAll(() => s.close());

async function freshServer() {
  const principal = await s.runtime.pipeline.principalFor(key);
  return createMcpServer({ pipeline: s.runtime.pipeline, apiKey: key, principal, principalIsFresh: true });
}

async function throughSdk(headers: Record<string, string>, body: unknown) {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await (await freshServer()).connect(transport);
  const res = await transport.handleRequest(new Request('http://wops.test/mcp', { method: 'POST', headers }), { parsedBody: body });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type'), body: text ? JSON.parse(text) : undefined };
}

async function throughJsonPost(headers: Record<string, string>, body: unknown) {
  const transport = new JsonPostTransport();
  await (await freshServer()).connect(transport);
  const answer = await transport.handle(headers, body);
  const json = answer.body === undefined ? undefined : JSON.parse(answer.body);
  return { status: answer.status, contentType: json === undefined ? null : 'application/json', body: json };
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const request = (id: number, method: string, params?: object) => ({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
const initialize = (id: number) =>
  request(id, 'initialize', { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 't', version: '1' } });
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };

const CASES: [string, Record<string, string>, unknown][] = [
  ['initialize', HEADERS, initialize(1)],
  ['tools/list', HEADERS, request(2, 'tools/list', {})],
  ['a read tool', HEADERS, request(3, 'tools/call', { name: 'board_ready', arguments: {} })],
  ['a tool error', HEADERS, request(4, 'tools/call', { name: 'board_createTask', arguments: { title: '' } })],
  ['an unknown tool', HEADERS, request(5, 'tools/call', { name: 'board_nope', arguments: {} })],
  ['tools/call without a name', HEADERS, request(6, 'tools/call', {})],
  ['an unknown method', HEADERS, request(7, 'board/nope')],
  ['a batch of requests and a notification', HEADERS, [request(8, 'ping'), initialized, request(9, 'resources/templates/list')]],
  ['notifications only (202)', HEADERS, initialized],
  ['Accept without text/event-stream (406)', { ...HEADERS, accept: 'application/json' }, request(10, 'ping')],
  ['no Accept (406)', { 'content-type': 'application/json' }, request(10, 'ping')],
  ['Content-Type not JSON (415)', { ...HEADERS, 'content-type': 'text/plain' }, request(11, 'ping')],
  ['not JSON-RPC', HEADERS, { hello: 'world' }],
  ['a batch over the limit', HEADERS, Array.from({ length: 101 }, (_, i) => request(i, 'ping'))],
  ['initialize in a batch', HEADERS, [initialize(12), request(13, 'ping')]],
  ['initialize whose params are not an initialize', { ...HEADERS, 'mcp-protocol-version': '1999-01-01' }, request(14, 'initialize', {})],
  ['initialize with an unsupported version header', { ...HEADERS, 'mcp-protocol-version': '1999-01-01' }, initialize(15)],
  ['an unsupported version header', { ...HEADERS, 'mcp-protocol-version': '1999-01-01' }, request(16, 'ping')],
  ['a supported version header', { ...HEADERS, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION }, request(17, 'ping')],
];

describe('JSON POST transport', () => {
  it.each(CASES)('answers as the SDK transport does: %s', async (_case, headers, body) => {
    expect(await throughJsonPost(headers, body)).toEqual(await throughSdk(headers, body));
  });
});
