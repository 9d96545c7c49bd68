import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { META } from '../../mcp/results.js';
import type { TestServer } from '../helpers/harness.js';
import { tablesHolding } from '../helpers/secrets.js';
import { connectInMemory, mcpTestServer, structured, toolError, type Connected } from './fixtures.js';

/*
 * Idempotency over MCP is the pipeline's: a key (given or derived) reused with other params is refused, and a
 * mint's secret is kept only sealed under the session's key. The SDK client validates structuredContent against
 * the tool's outputSchema, so a withheld replay (apiKey null) must fit it.
 */
let s: TestServer;
let admin: Connected;
beforeAll(async () => {
  s = await mcpTestServer();
  admin = await connectInMemory(s.runtime, s.org.adminKey, { toolsets: 'all' });
});
afterAll(async () => {
  await admin.close();
  await s.close();
});

const call = (c: Connected, name: string, args: Record<string, unknown> = {}) => c.client.callTool({ name, arguments: args });

describe('idempotency over MCP', () => {
  it('an explicit idempotencyKey reused with other params is BAD_REQUEST naming idempotencyKey; the same params replay', async () => {
    const first = await call(admin, 'board_createTask', { title: 'First act', idempotencyKey: 'mcp-reused' });
    const task = structured(first);
    const other = toolError(await call(admin, 'board_createTask', { title: 'Second act', idempotencyKey: 'mcp-reused' }));
    expect(other.code).toBe('BAD_REQUEST');
    expect(other.message).toMatch(
      /^idempotencyKey: already used for board\.createTask with different params \(first call at [^)]+\); use a new key for a new act, or resend the same params to replay$/,
    );
    const same = await call(admin, 'board_createTask', { title: 'First act', idempotencyKey: 'mcp-reused' });
    expect(structured(same).id).toBe(task.id);
    expect(same._meta?.[META.replayed]).toBe(true);
    // The key is shared with HTTP, and so is the check: there it names the header.
    const http = await s.client.rpc('board.createTask', { title: 'Second act' }, { idem: 'mcp-reused' });
    expect(http.body.error.message).toMatch(/^x-idempotency-key: already used for board\.createTask with different params/);
  });

  it('a mint under the derived key: the retry replays the same secret, no table holds it, another key of the principal gets it withheld', async () => {
    const args = { name: 'minted over mcp', tier: 'reader' };
    const first = await call(admin, 'settings_mintApiKey', args);
    const minted = structured(first);
    expect(minted.apiKey).toMatch(/^wops_/);
    expect(String(first._meta?.[META.idempotencyKey])).toMatch(/^mcp-[0-9a-f]{64}$/);
    expect(await tablesHolding(s.runtime.db, minted.apiKey)).toEqual([]);

    const again = await call(admin, 'settings_mintApiKey', args);
    expect(again._meta?.[META.replayed]).toBe(true);
    // The same bytes, after a first text saying, in words the model reads, that this is a replay.
    expect((again.content as unknown[]).slice(1)).toEqual(first.content);
    expect((again.content as { text: string }[])[0].text).toMatch(
      /^Replayed: a call with idempotencyKey mcp-[0-9a-f]{64} already ran; this is its stored result and nothing ran again/,
    );

    const me = structured(await call(admin, 'org_whoami')).principal.id;
    const sibling = structured(await call(admin, 'settings_mintApiKey', { name: 'sibling', tier: 'admin', principalId: me, idempotencyKey: 'sibling' }));
    const other = await connectInMemory(s.runtime, sibling.apiKey, { toolsets: 'all' });
    try {
      // Listing makes the SDK client validate every result against the tool's outputSchema.
      expect((await other.client.listTools()).tools.find((t) => t.name === 'settings_mintApiKey')?.outputSchema?.properties).toHaveProperty('secretWithheld');
      const replay = await call(other, 'settings_mintApiKey', args);
      expect(replay._meta?.[META.replayed]).toBe(true);
      const withheld = structured(replay);
      expect(withheld).toMatchObject({ keyId: minted.keyId, apiKey: null });
      expect(withheld.secretWithheld).toContain(`revoke ${minted.keyId} (settings.revokeApiKey)`);
    } finally {
      await other.close();
    }
    expect(await tablesHolding(s.runtime.db, sibling.apiKey)).toEqual([]);
  });
});
