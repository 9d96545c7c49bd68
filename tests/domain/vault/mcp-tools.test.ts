import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectInMemory, toolError, type Connected } from '../../mcp/fixtures.js';
import { vaultOrg, type VaultOrg } from './kit.js';
import { remoteFixture, type RemoteFixture } from './remote-fixture.js';

/*
 * The integration.tools toolset over MCP: an SDK Client paired with the server over InMemoryTransport, the
 * remote a real SDK McpServer on 127.0.0.1. The caller lists exactly its allowed remote tools as
 * ext_<integration>__<tool> with their pinned schemas, calls them through invokeTool's checks, never sees the
 * credential, and is told tools/list_changed when anyone's re-sync moves its toolsetVersion, without calling.
 */

let v: VaultOrg;
let remote: RemoteFixture;
let credentialId: string;
let integrationId: string;
/** Every result and listing the test's clients received, to look for the credential in. */
const seen: string[] = [];
const sessions: Connected[] = [];

beforeAll(async () => {
  v = await vaultOrg();
  remote = await remoteFixture();
  credentialId = (await v.s.client.ok('credential.put', { name: 'fixture.token', value: remote.token })).credential.id;
  integrationId = (await v.s.client.ok('integration.connect', { name: 'fixture', url: remote.url, auth: auth() })).integration.id;
  await v.s.client.ok('integration.connect', { name: 'restricted', url: remote.url, auth: auth(), access: [v.other.id], allowTools: ['echo'] });
});
afterAll(async () => {
  for (const s of sessions) await s.close();
  await v.close();
  await remote.close();
});

const auth = () => ({ kind: 'bearer', credentialId });

async function session(key: string, selection: { toolsets?: string; readOnly?: string } = { toolsets: 'integration' }): Promise<Connected> {
  const s = await connectInMemory(v.s.runtime, key, selection);
  sessions.push(s);
  return s;
}

async function listed(s: Connected) {
  const { tools } = await s.client.listTools();
  seen.push(JSON.stringify(tools));
  return tools;
}

async function call(s: Connected, name: string, args: Record<string, unknown> = {}) {
  const out = await s.client.callTool({ name, arguments: args });
  seen.push(JSON.stringify(out));
  return out;
}

const extNames = (tools: { name: string }[]) => tools.map((t) => t.name).filter((n) => n.startsWith('ext_'));

describe('integration.tools over MCP', () => {
  it('lists the caller’s allowed remote tools with their pinned description and schema, openWorld', async () => {
    const s = await session(v.agent.key);
    const tools = await listed(s);
    expect(extNames(tools)).toEqual(['ext_fixture__big', 'ext_fixture__echo', 'ext_fixture__fail', 'ext_fixture__mood', 'ext_fixture__slow']);
    const echo = tools.find((t) => t.name === 'ext_fixture__echo')!;
    expect(echo.description).toBe('Echo the text back.');
    expect(echo.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string', maxLength: 1000 } }, required: ['text'] });
    expect(echo.annotations).toMatchObject({ openWorldHint: true, readOnlyHint: true });
    // The same list integration.listAgentTools answers for the caller, name for name.
    const agentTools = (await v.s.client.ok('integration.listAgentTools', {}, { key: v.agent.key })).tools.map((t: { name: string }) => `ext_${t.name}`);
    expect(extNames(tools)).toEqual(agentTools);
    expect(s.client.getServerCapabilities()?.tools?.listChanged).toBe(true);
  });

  it('a call returns the remote tool’s echo; an off-schema call is an error naming arguments.<path>', async () => {
    const s = await session(v.agent.key);
    const out = await call(s, 'ext_fixture__echo', { text: 'hello' });
    expect(out).toMatchObject({ content: [{ type: 'text', text: 'hello' }], structuredContent: { text: 'hello' } });
    expect(out.isError).toBeFalsy();
    const bad = toolError(await call(s, 'ext_fixture__echo', { text: 5 }));
    expect(bad.code).toBe('BAD_REQUEST');
    expect(bad.message).toMatch(/^arguments\.text: /);
    expect(remote.calls.filter((c) => c === 'echo')).toHaveLength(1);
  });

  it('a tool_error is an MCP tool error, its words scrubbed of the credential', async () => {
    const s = await session(v.agent.key);
    const out = await call(s, 'ext_fixture__fail');
    expect(out.isError).toBe(true);
    expect(JSON.stringify(out.content)).toContain('[redacted]');
    expect(JSON.stringify(out.content)).toContain('tool_error');
  });

  it('a tool the caller may not call is neither listed nor callable: not allowed on the integration, or not in its access', async () => {
    const s = await session(v.agent.key);
    expect(extNames(await listed(s))).not.toContain('ext_fixture__leak');
    await expect(call(s, 'ext_fixture__leak')).rejects.toThrow(/Tool ext_fixture__leak not found/);
    await expect(call(s, 'ext_restricted__echo')).rejects.toThrow(/not found/);
    // The restricted integration's access list names the other agent: it lists that one, and only its echo.
    const other = await session(v.other.key);
    expect(extNames(await listed(other))).toContain('ext_restricted__echo');
    expect(extNames(await listed(other)).filter((n) => n.startsWith('ext_restricted__'))).toEqual(['ext_restricted__echo']);
  });

  it('hidden in read-only sessions and when the toolset is not selected', async () => {
    const ro = await session(v.agent.key, { toolsets: 'integration', readOnly: 'true' });
    expect(extNames(await listed(ro))).toEqual([]);
    expect(ro.client.getServerCapabilities()?.tools?.listChanged).toBe(false);
    await expect(call(ro, 'ext_fixture__echo', { text: 'x' })).rejects.toThrow(/not found/);
    const board = await session(v.agent.key, { toolsets: 'board' });
    expect(extNames(await listed(board))).toEqual([]);
    // The integrations desk and all select it.
    expect(extNames(await listed(await session(v.agent.key, { toolsets: 'integrations' })))).toContain('ext_fixture__echo');
    expect(extNames(await listed(await session(v.agent.key, { toolsets: 'all' })))).toContain('ext_fixture__echo');
    const alone = await listed(await session(v.agent.key, { toolsets: 'integration.tools' }));
    expect(extNames(alone)).toContain('ext_fixture__echo');
    expect(alone.map((t) => t.name)).not.toContain('integration_invokeTool');
  });

  it('another session’s re-sync that moves the toolsetVersion pushes tools/list_changed at once; the newly allowed tool comes back scrubbed', async () => {
    const s = await session(v.agent.key);
    let changed = 0;
    s.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++;
    });
    await listed(s);
    await call(s, 'ext_fixture__mood');
    expect(changed).toBe(0);
    // Another session (the admin over HTTP) re-syncs: the notice arrives without this session calling anything.
    await v.s.client.ok('integration.connect', { integrationId, name: 'fixture', url: remote.url, auth: auth(), allowTools: ['*'] });
    await expect.poll(() => changed, { timeout: 3000 }).toBe(1);
    // Its next call finds nothing new: no second notice.
    await call(s, 'ext_fixture__mood');
    await new Promise((r) => setTimeout(r, 10));
    expect(changed).toBe(1);
    expect(extNames(await listed(s))).toContain('ext_fixture__leak');
    const leak = await call(s, 'ext_fixture__leak');
    expect((leak.content as { text: string }[])[0].text).toBe('raw Bearer [redacted] b64 [redacted] url [redacted]');
    // Nothing moved since: no second notice.
    await call(s, 'ext_fixture__mood');
    await new Promise((r) => setTimeout(r, 10));
    expect(changed).toBe(1);
  });

  it('the credential never shows in anything a client received', () => {
    const all = seen.join('\n');
    expect(all.length).toBeGreaterThan(1000);
    for (const form of [remote.token, Buffer.from(remote.token).toString('base64').replace(/=+$/, ''), encodeURIComponent(remote.token)]) {
      expect(all).not.toContain(form);
    }
  });
});
