import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { pgliteOnly } from '../helpers/harness.js';
import { runCli } from '../helpers/cli.js';

/*
 * The stdio server as an MCP client configuration runs it (`node bin/wops-mcp.js`, the key in WOPS_API_KEY), driven
 * by the MCP SDK's own client over its stdio transport (what the MCP Inspector CLI and desktop clients use), one
 * process per session, against a fresh PGlite data dir with an org and a key made by the CLI (tests/helpers/cli.ts).
 */

const dataDir = mkdtempSync(join(tmpdir(), 'wops-mcp-stdio-'));
// Always PGlite in its own data dir: the stdio server opens the database itself.
const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn' };
const run = (cmd: string, args: string[], extraEnv: Record<string, string> = {}) =>
  spawnSync(cmd, args, { env: { ...env, ...extraEnv }, encoding: 'utf8', timeout: 90_000 });

function shownOnce(stdout: string): string {
  const key = /\(shown once\): (wops_\S+)/.exec(stdout)?.[1];
  if (!key) throw new Error(`no key in: ${stdout}`);
  return key;
}

/** Start `node bin/wops-mcp.js <serverArgs>` with the key, run `use` on a connected client, then close both. */
async function session<T>(apiKey: string, serverArgs: string[], use: (client: Client) => Promise<T>): Promise<T> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['bin/wops-mcp.js', ...serverArgs],
    env: { ...env, WOPS_API_KEY: apiKey },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'stdio-test', version: '1' });
  await client.connect(transport);
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

let agentKey: string;

beforeAll(() => {
  const org = runCli(['org', 'create', '--slug', 'stdio-co', '--name', 'Stdio Co'], env, 90_000);
  expect(org.status, org.stderr).toBe(0);
  const key = runCli(['key', 'mint', '--org', 'stdio-co', '--name', 'stdio agent', '--tier', 'agent'], env, 90_000);
  expect(key.status, key.stderr).toBe(0);
  agentKey = shownOnce(key.stdout);
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

pgliteOnly('tests/mcp/stdio')('stdio server (bin/wops-mcp.js), driven by the SDK client over stdio', () => {
  it('tools/list lists the generated tools for the key, honouring --toolsets', async () => {
    const listed = await session(agentKey, ['--toolsets', 'board'], (c) => c.listTools());
    const names: string[] = listed.tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['board_createTask', 'board_ready', 'approval_wait', 'search_methods', 'describe_method', 'invoke_read', 'invoke_write']),
    );
    expect(names).not.toContain('approval_request');
    const createTask = listed.tools.find((t) => t.name === 'board_createTask') as any;
    expect(createTask.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true });
    expect(createTask.inputSchema.properties.title.description).toBeTruthy();
  });

  it('tools/call runs a method; the same call from a new process replays (derived idempotency key)', async () => {
    const call = (args: Record<string, unknown>): Promise<any> =>
      session(agentKey, ['--toolsets', 'work'], (c) => c.callTool({ name: 'board_createTask', arguments: args }));
    const first = await call({ title: 'Filed over stdio', priority: 'high' });
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent).toMatchObject({ title: 'Filed over stdio', priority: 'high', col: 'triage' });
    expect(JSON.parse(first.content[0].text)).toEqual(first.structuredContent);
    const second = await call({ title: 'Filed over stdio', priority: 'high' });
    expect(second.content[0].text).toMatch(/^Replayed: /);
    expect(second.structuredContent.id).toBe(first.structuredContent.id);
    expect(second._meta['wops/idempotentReplay']).toBe(true);

    const error = await call({ priority: 'high' });
    expect(error.isError).toBe(true);
    expect(JSON.parse(error.content[0].text)).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message: 'title: required' } });

    // The ledger the stdio process wrote verifies from the command line.
    const verified = runCli(['verify', '--org', 'stdio-co'], env, 90_000);
    expect(verified.status, verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/^ok\s+stdio-co: \d+ events verified/);
  });

  it('answers every request piped in before stdin closes, then exits 0 (stdout carries only JSON-RPC)', () => {
    const lines = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'board_createTask', arguments: { title: 'Piped in' } } },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'board_createTask', arguments: { title: 'Piped in' } } },
    ];
    const res = spawnSync('node', ['bin/wops-mcp.js', '--toolsets', 'work'], {
      env: { ...env, WOPS_API_KEY: agentKey },
      input: lines.map((l) => JSON.stringify(l)).join('\n') + '\n',
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(res.status, res.stderr).toBe(0);
    const replies = res.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(replies.map((r) => r.id)).toEqual([1, 2, 3]);
    expect(replies[0].result.instructions).toMatch(/approval_required/);
    expect(replies[2].result.structuredContent.id).toBe(replies[1].result.structuredContent.id);
    expect(replies[2].result._meta['wops/idempotentReplay']).toBe(true);
  });

  it('refuses to start without a key or with a bad one, saying why on stderr (stdout stays clean)', () => {
    const none = run('node', ['bin/wops-mcp.js'], { WOPS_API_KEY: '' });
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/set WOPS_API_KEY/);
    expect(none.stdout).toBe('');
    const bad = run('node', ['bin/wops-mcp.js'], { WOPS_API_KEY: 'wops_not_a_key' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/UNAUTHORIZED: invalid or revoked credential/);
    expect(bad.stdout).toBe('');
    const toolset = run('node', ['bin/wops-mcp.js', '--toolsets', 'nope'], { WOPS_API_KEY: agentKey });
    expect(toolset.status).toBe(2);
    expect(toolset.stderr).toMatch(/unknown toolset "nope"/);
  });
});
