import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHOD_HANDLERS, READ_HANDLERS } from '../../domain/deployed.js';
import { buildCatalog } from '../../mcp/catalog.js';
import { META_TOOLS } from '../../mcp/meta-tools.js';
import { expectError } from '../helpers/frames.js';
import { testServer, type TestServer } from '../helpers/harness.js';
import { connectInMemory, structured, toolError, type Connected } from './fixtures.js';

/*
 * A server that does not deploy a registry family (every family is deployed here, so the harness leaves some out:
 * testServer({ without })) answers its methods and reads NOT_FOUND "not deployed on this server", over HTTP and over
 * MCP, even to a key holding every scope (the org's admin), and lists no tool of theirs. Left out: sop (methods) and
 * inbox (the read GET /org/inbox); no other family needs them at run time.
 */

let s: TestServer;
let mcp: Connected;
beforeAll(async () => {
  s = await testServer({ without: ['sop', 'inbox'] });
  mcp = await connectInMemory(s.runtime, s.org.adminKey, { toolsets: 'all' });
});
afterAll(async () => {
  await mcp.close();
  await s.close();
});

const call = (name: string, args: Record<string, unknown> = {}) => mcp.client.callTool({ name, arguments: args });

describe('a registry family this server does not deploy', () => {
  it('HTTP: its methods answer NOT_FOUND (404) saying so, and the OpenAPI document marks them undeployed', async () => {
    const create = await s.client.rpc('sop.create', { title: 'Close', purpose: 'Close the month.', steps: [] });
    expectError(create, 'NOT_FOUND', 'method sop.create is not deployed on this server');
    expect(create.status).toBe(404);
    expectError(await s.client.rpc('sop.list', {}), 'NOT_FOUND', 'method sop.list is not deployed on this server');
    expectError(await s.client.get('org/inbox'), 'NOT_FOUND', 'read /org/inbox is not deployed on this server');
    // The rest of the server is whole.
    expect((await s.client.ok('board.createTask', { title: 'still here' })).id).toMatch(/^task_/);
    const doc = (await s.app.inject({ method: 'GET', url: '/api/v1/openapi.json?family=sop' })).json();
    expect(doc.paths['/api/v1/sop.create'].post['x-deployed']).toBe(false);
    expect(doc.paths['/api/v1/sop.create'].post.description).toContain('not deployed on this server');
  });

  it('MCP: absent from tools/list; describe, invoke_read and invoke_write answer NOT_FOUND; search shows it undeployed', async () => {
    // A server deploying every family lists sop_create under this name.
    expect(buildCatalog(METHOD_HANDLERS, READ_HANDLERS).byTarget.get('sop.create')?.tool).toBe('sop_create');
    const names = (await mcp.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('board_createTask');
    expect(names.filter((n) => n.startsWith('sop_'))).toEqual([]);

    expect(toolError(await call(META_TOOLS.describe, { name: 'sop.create' }))).toEqual({
      code: 'NOT_FOUND',
      message: 'method sop.create is in the registry [org.write; M,I] but not deployed on this server: calls answer NOT_FOUND',
    });
    expect(toolError(await call(META_TOOLS.read, { name: 'sop.list', params: {} }))).toEqual({
      code: 'NOT_FOUND',
      message: 'method sop.list is not deployed on this server',
    });
    expect(toolError(await call(META_TOOLS.read, { name: 'org/inbox' }))).toEqual({
      code: 'NOT_FOUND',
      message: 'read /org/inbox is not deployed on this server',
    });
    expect(toolError(await call(META_TOOLS.write, { name: 'sop.create', params: { title: 'Close', purpose: 'p', steps: [] } }))).toEqual({
      code: 'NOT_FOUND',
      message: 'method sop.create is not deployed on this server',
    });
    // The wrong invoke tool is still told apart by the registry's flags.
    expect(toolError(await call(META_TOOLS.write, { name: 'sop.list' }))).toEqual({
      code: 'BAD_REQUEST',
      message: `name: sop.list is read-only; call it with ${META_TOOLS.read}`,
    });

    const hidden = structured(await call(META_TOOLS.search, { family: 'sop' }));
    expect(hidden.matches).toEqual([]);
    const shown = structured(await call(META_TOOLS.search, { family: 'sop', includeUndeployed: true }));
    expect(shown.matches.map((m: any) => [m.name, m.deployed, m.tool])).toEqual(
      expect.arrayContaining([
        ['sop.create', false, null],
        ['sop.list', false, null],
      ]),
    );
  });
});
