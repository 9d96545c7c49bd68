import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_URL, freshOrg, onPostgres, TestClient, testServer } from '../helpers/harness.js';
import { headOf } from '../helpers/ledger.js';

/*
 * The product as installed: npm run build (bin/build.js) compiles the server into dist/, npm start runs
 * node dist/cli/main.js, and bin/wops-mcp.js runs dist/cli/mcp.js; no TypeScript loader in either. The
 * compiled code finds its files (migrations, the inbox, swagger-ui, the PGlite template) from the package root.
 * All of it happens in a copy of the package (its sources, with this node_modules linked in): the suite's own
 * dist/, which the other process tests run when it is up to date, is never rewritten under them.
 */
const ORIGIN = process.cwd();
const work = mkdtempSync(join(tmpdir(), 'wops-build-'));
const ROOT = join(work, 'package');
mkdirSync(ROOT);
for (const entry of readdirSync(ORIGIN)) {
  if (entry.startsWith('.') || ['node_modules', 'dist', 'tests'].includes(entry)) continue;
  cpSync(join(ORIGIN, entry), join(ROOT, entry), { recursive: true });
}
symlinkSync(join(ORIGIN, 'node_modules'), join(ROOT, 'node_modules'));
const STAMP = join(ROOT, 'dist', '.build-stamp');
const dataDir = join(work, 'data');
// PGlite in its own data dir, whichever database the rest of the suite runs on.
const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'info' };
// tsc over the whole server takes ~30 s alone on 2 cores, and several times that beside the rest of the suite: the
// limits only catch a hang.
const BUILD_LIMIT_MS = 400_000;
const node = (args: string[], opts: { env?: Record<string, string>; input?: string; cwd?: string } = {}) =>
  spawnSync(process.execPath, args, { cwd: opts.cwd ?? ROOT, env: { ...env, ...opts.env }, input: opts.input, encoding: 'utf8', timeout: BUILD_LIMIT_MS });

let buildMs = 0;
beforeAll(() => {
  const started = performance.now();
  const res = node(['bin/build.js']);
  buildMs = performance.now() - started;
  expect(res.status, res.stderr).toBe(0);
  expect(res.stdout).toBe('');
  expect(res.stderr).toMatch(/^building the compiled server into dist\/ \(npm run build\): tsc -p tsconfig.build.json\nbuilt dist\/ in [\d.]+ s\n$/);
}, BUILD_LIMIT_MS + 10_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

let adminKey: string;

describe('compiled build (dist/)', () => {
  it('emits JavaScript with source maps for the server code only; a second start builds nothing', () => {
    console.info(`[build] node bin/build.js took ${Math.round(buildMs)} ms`);
    for (const file of ['cli/main.js', 'cli/main.js.map', 'cli/mcp.js', 'db/migrate.js', 'gateway/app.js', 'ledger/verify-worker.js']) {
      expect(existsSync(join(ROOT, 'dist', file)), file).toBe(true);
    }
    expect(existsSync(join(ROOT, 'dist', 'tests'))).toBe(false);
    expect(existsSync(join(ROOT, 'dist', 'bench'))).toBe(false);
    expect(existsSync(join(ROOT, 'dist', 'db', 'migrations'))).toBe(false); // read from the package root, not copied

    const again = node(['bin/build.js', '--if-stale']);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stderr).toBe('');
  });

  it('builds again when a source file is newer than the last build (npm start, wops-mcp)', () => {
    const longAgo = new Date('2001-01-01T00:00:00Z');
    utimesSync(STAMP, longAgo, longAgo); // as if every source file had changed since
    const res = node(['bin/build.js', '--if-stale']);
    expect(res.status, res.stderr).toBe(0);
    expect(statSync(STAMP).mtimeMs).toBeGreaterThan(Date.now() - 600_000);
    expect(res.stderr).toMatch(/^building the compiled server into dist\/ \(a source file is newer than dist\/\): tsc -p tsconfig.build.json\nbuilt dist\/ in/);
  }, 120_000);

  it('npm start serves from dist/ on PGlite: health, OpenAPI, the approval inbox, /docs, the bootstrap key', async () => {
    const server = spawn(process.execPath, ['--enable-source-maps', 'dist/cli/main.js', 'serve'], { cwd: ROOT, env: { ...env, PORT: '0' } });
    let output = '';
    server.stdout.on('data', (d) => (output += d));
    server.stderr.on('data', (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => server.on('exit', resolve));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 60_000);
        const check = () => {
          const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
          if (m && /"msg":"serving on/.test(output)) {
            clearTimeout(timer);
            resolve(m[1]);
          } else if (server.exitCode !== null) reject(new Error(`server exited:\n${output}`));
          else setTimeout(check, 50);
        };
        check();
      });
      adminKey = /Admin API key \(shown once, store it now\): (wops_\S+)/.exec(output)?.[1] ?? '';
      expect(adminKey, output).toMatch(/^wops_/);

      const get = async (path: string, headers: Record<string, string> = {}) => {
        const res = await fetch(`${url}${path}`, { headers });
        return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
      };
      expect(await get('/healthz')).toMatchObject({ status: 200, body: '{"ok":true,"database":"pglite"}' });
      const openapi = await get('/api/v1/openapi.json');
      expect(openapi.status).toBe(200);
      expect(Object.keys(JSON.parse(openapi.body).paths).length).toBeGreaterThan(400);
      const inbox = await get('/approvals');
      expect(inbox).toMatchObject({ status: 200, type: expect.stringMatching(/^text\/html/) });
      expect(await get('/approvals/assets/app.js')).toMatchObject({ status: 200, type: expect.stringMatching(/^text\/javascript/) });
      expect(await get('/approvals/vendor/preact.mjs')).toMatchObject({ status: 200 });
      const docs = await get('/docs');
      expect(docs.status).toBe(200);
      expect(await get('/docs/assets/swagger-ui-bundle.js')).toMatchObject({ status: 200 });
      const who = await get('/api/v1/org/whoami', { authorization: `Bearer ${adminKey}` });
      expect(who.status, who.body).toBe(200);
    } finally {
      server.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 90_000);

  it('bin/wops-mcp.js runs the compiled stdio server: tools/list over stdin/stdout, logs only on stderr', () => {
    const lines = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'build-test', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
    ];
    const res = node(['bin/wops-mcp.js', '--toolsets', 'board'], {
      env: { WOPS_API_KEY: adminKey },
      input: `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`,
    });
    expect(res.status, res.stderr).toBe(0);
    const replies = res.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(replies.map((r) => r.id)).toEqual([1, 2]);
    const names: string[] = replies[1].result.tools.map((t: { name: string }) => t.name);
    expect(names).toEqual(expect.arrayContaining(['board_createTask', 'search_methods', 'invoke_write']));
  }, 90_000);

  it.skipIf(!onPostgres)('the compiled verify runs its segments on worker threads of plain JavaScript (PostgreSQL only)', async () => {
    const s = await testServer();
    try {
      const org = await freshOrg(s.runtime, 'build');
      const client = new TestClient(s.app, org.adminKey);
      for (let i = 1; i <= 9; i++) await client.ok('settings.renameApiKey', { keyId: org.adminKeyId, name: `name ${i}` });
      const compiled = (await import(pathToFileURL(join(ROOT, 'dist', 'ledger', 'verify.js')).href)) as typeof import('../../ledger/verify.js');
      const parallel = { databaseUrl: DATABASE_URL as string, threads: 3, minEvents: 1 };
      expect(await compiled.verifyInSegments(s.runtime.db, org.orgId, 2, parallel)).toEqual(await headOf(s.runtime.db, org.orgId));
    } finally {
      await s.close();
    }
  });

  it('a build that is needed without typescript installed fails saying what to do', () => {
    // A package with the sources but no dev dependencies (npm install --omit=dev): only the runtime's proper-lockfile.
    const bare = join(work, 'bare');
    mkdirSync(join(bare, 'bin'), { recursive: true });
    mkdirSync(join(bare, 'node_modules'));
    copyFileSync(join(ROOT, 'bin', 'build.js'), join(bare, 'bin', 'build.js'));
    for (const f of ['package.json', 'tsconfig.json', 'tsconfig.build.json']) copyFileSync(join(ROOT, f), join(bare, f));
    cpSync(join(ROOT, 'protocol'), join(bare, 'protocol'), { recursive: true });
    for (const dir of ['db', 'ledger', 'domain', 'gateway', 'mcp', 'ai-gateway', 'mail', 'cli']) mkdirSync(join(bare, dir));
    symlinkSync(join(ROOT, 'node_modules', 'proper-lockfile'), join(bare, 'node_modules', 'proper-lockfile'));
    const res = node(['bin/build.js', '--if-stale'], { cwd: bare });
    expect(res.status).toBe(1);
    expect(res.stderr).toMatch(
      /^error: the compiled server needs building \(dist\/ has not been built\), and that needs the dev dependency typescript, which is not installed: run npm install/m,
    );
    expect(existsSync(join(bare, 'dist', 'cli'))).toBe(false);
  });
});
