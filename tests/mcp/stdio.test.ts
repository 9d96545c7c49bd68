import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgliteOnly } from '../helpers/harness.js';
import { runCli } from '../helpers/cli.js';

/*
 * The stdio server checked with the official MCP Inspector CLI, as a user would run it:
 *   npx @modelcontextprotocol/inspector --cli -e WOPS_API_KEY=<key> node bin/wops-mcp.js --method tools/list
 * against a fresh PGlite data dir, with an org and a key made by the CLI (tests/helpers/cli.ts). Runs in CI with the rest of
 * the suite; skipped, and saying so, when the inspector is not installed.
 */

const INSPECTOR = join(process.cwd(), 'node_modules/@modelcontextprotocol/inspector/cli/build/cli.js');
const hasInspector = existsSync(INSPECTOR);
if (!hasInspector) console.warn(`[mcp inspector] SKIPPED: ${INSPECTOR} is missing; run npm install to check the stdio server with the MCP Inspector`);

const dataDir = mkdtempSync(join(tmpdir(), 'wops-mcp-inspector-'));
// Always PGlite in its own data dir: the stdio server opens the database itself.
const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn' };
const run = (cmd: string, args: string[], extraEnv: Record<string, string> = {}) =>
  spawnSync(cmd, args, { env: { ...env, ...extraEnv }, encoding: 'utf8', timeout: 90_000 });

function shownOnce(stdout: string): string {
  const key = /\(shown once\): (wops_\S+)/.exec(stdout)?.[1];
  if (!key) throw new Error(`no key in: ${stdout}`);
  return key;
}

function inspector(apiKey: string, serverArgs: string[], method: string[]) {
  // The inspector's own bin (what npx @modelcontextprotocol/inspector runs), without npx's seconds of start-up.
  const res = run(process.execPath, [INSPECTOR, '--cli', '-e', `WOPS_API_KEY=${apiKey}`, 'node', 'bin/wops-mcp.js', ...serverArgs, ...method]);
  if (res.status !== 0) throw new Error(`inspector exited ${res.status}:\n${res.stdout}\n${res.stderr}`);
  return JSON.parse(res.stdout);
}

let agentKey: string;

beforeAll(() => {
  const org = runCli(['org', 'create', '--slug', 'inspector-co', '--name', 'Inspector Co'], env, 90_000);
  expect(org.status, org.stderr).toBe(0);
  const key = runCli(['key', 'mint', '--org', 'inspector-co', '--name', 'inspector agent', '--tier', 'agent'], env, 90_000);
  expect(key.status, key.stderr).toBe(0);
  agentKey = shownOnce(key.stdout);
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

pgliteOnly('tests/mcp/stdio')('stdio server (bin/wops-mcp.js), checked with the MCP Inspector CLI', () => {
  it.skipIf(!hasInspector)('tools/list lists the generated tools for the key, honouring --toolsets', () => {
    const listed = inspector(agentKey, ['--toolsets', 'board'], ['--method', 'tools/list']);
    const names: string[] = listed.tools.map((t: { name: string }) => t.name);
    expect(names).toEqual(expect.arrayContaining(['board_createTask', 'board_ready', 'approval_wait', 'search_methods', 'describe_method', 'invoke_read', 'invoke_write']));
    expect(names).not.toContain('approval_request');
    const createTask = listed.tools.find((t: { name: string }) => t.name === 'board_createTask');
    expect(createTask.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: true });
    expect(createTask.inputSchema.properties.title.description).toBeTruthy();
  });

  it.skipIf(!hasInspector)('tools/call runs a method; the same call from a new process replays (derived idempotency key)', () => {
    const call = () =>
      inspector(agentKey, ['--toolsets', 'work'], ['--method', 'tools/call', '--tool-name', 'board_createTask', '--tool-arg', 'title=Filed by the inspector', '--tool-arg', 'priority=high']);
    const first = call();
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent).toMatchObject({ title: 'Filed by the inspector', priority: 'high', col: 'triage' });
    expect(JSON.parse(first.content[0].text)).toEqual(first.structuredContent);
    const second = call();
    expect(second.content[0].text).toMatch(/^Replayed: /);
    expect(second.structuredContent.id).toBe(first.structuredContent.id);
    expect(second._meta['wops/idempotentReplay']).toBe(true);

    const error = inspector(agentKey, ['--toolsets', 'work'], ['--method', 'tools/call', '--tool-name', 'board_createTask', '--tool-arg', 'priority=high']);
    expect(error.isError).toBe(true);
    expect(JSON.parse(error.content[0].text)).toEqual({ ok: false, error: { code: 'BAD_REQUEST', message: 'title: required' } });

    // The ledger the stdio process wrote verifies from the command line.
    const verified = runCli(['verify', '--org', 'inspector-co'], env, 90_000);
    expect(verified.status, verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/^ok\s+inspector-co: \d+ events verified/);
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
    const replies = res.stdout.trim().split('\n').map((l) => JSON.parse(l));
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
    const empty = run('node', ['bin/wops-mcp.js', '--toolsets', 'crm'], { WOPS_API_KEY: agentKey });
    expect(empty.status).toBe(2);
    expect(empty.stderr).toMatch(/"crm" has nothing deployed on this server yet/);
  });
});
