import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsAfter, head } from '../helpers/calls.js';
import type { TestServer } from '../helpers/harness.js';
import { connectInMemory, mcpTestServer, structured, toolError } from './fixtures.js';

/*
 * An app-only tool (MCP Apps `_meta.ui.visibility: ["app"]`, contract mcpAppOnly): artifact_act, which the artifact
 * pages call when a person presses a Button. Hosts keep it from the model; the server lists it with that mark and
 * words saying what it is for, and the model-facing meta-tools apply the mark themselves (the server cannot tell a
 * page's call from the model's): search offers no tool, describe says so, invoke_write refuses it.
 */

let s: TestServer;
beforeAll(async () => {
  s = await mcpTestServer();
});
afterAll(() => s.close());

const WHY = "the artifact's page (ui://artifacts/art_…) calls it when a person presses a Button or submits a form there";

describe('artifact_act, app-only', () => {
  it('is listed on the artifacts desk marked for the app, saying what for; no other tool carries the mark', async () => {
    const c = await connectInMemory(s.runtime, s.org.adminKey, { toolsets: 'artifacts' });
    try {
      const { tools } = await c.client.listTools();
      const act = tools.find((t) => t.name === 'artifact_act');
      expect(act?._meta).toEqual({ ui: { visibility: ['app'] } });
      expect(act?.description).toContain(`App-only (MCP Apps): ${WHY}; to learn what people answered, call artifact.get`);
      expect(act?.annotations?.readOnlyHint).toBe(false);
      expect(tools.filter((t) => t._meta !== undefined).map((t) => t.name)).toEqual(['artifact_act']);
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['artifact_create', 'artifact_get', 'artifact_patch']));
    } finally {
      await c.close();
    }
  });

  it('describe_method says so, search_methods offers no tool for it, invoke_write refuses it; the page’s call runs the method', async () => {
    const c = await connectInMemory(s.runtime, s.org.adminKey, { toolsets: 'artifacts' });
    try {
      const described = structured(await c.client.callTool({ name: 'describe_method', arguments: { name: 'artifact_act' } }));
      expect(described).toMatchObject({ name: 'artifact.act', allowed: false, tool: null });
      expect(described.notes).toContainEqual(
        `App-only (MCP Apps): ${WHY}; to learn what people answered, call artifact.get (waitMs waits for the next response). Hosts give its tool to the page, not to you; invoke_write refuses it.`,
      );
      const found = structured(await c.client.callTool({ name: 'search_methods', arguments: { query: 'artifact act', family: 'artifact' } }));
      expect(found.matches.find((m: { name: string }) => m.name === 'artifact.act')).toMatchObject({ tool: null, allowed: false });
      expect(found.matches.find((m: { name: string }) => m.name === 'artifact.get')).toMatchObject({ tool: 'artifact_get', allowed: true });

      const params = { artifactId: 'art_0123456789abcdef', actionId: 'approve', revision: 1, idempotencyId: 'page-1' };
      const from = await head(s);
      expect(toolError(await c.client.callTool({ name: 'invoke_write', arguments: { name: 'artifact.act', params } }))).toEqual({
        code: 'NOT_FOUND',
        message: `artifact.act is for an MCP App's page, not for you: ${WHY}; to learn what people answered, call artifact.get (waitMs waits for the next response); nothing was called`,
      });
      expect(await eventsAfter(s, from)).toEqual([]);
      // The host relays the page's tools/call on this connection: the method runs (an unknown artifact: NOT_FOUND from it).
      expect(toolError(await c.client.callTool({ name: 'artifact_act', arguments: params }))).toEqual({
        code: 'NOT_FOUND',
        message: 'artifact art_0123456789abcdef not found',
      });
    } finally {
      await c.close();
    }
  });
});
