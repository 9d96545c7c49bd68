import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoDesk } from '../../../cli/demo.js';
import { demoIntegration } from '../../../cli/demo-integration.js';
import { Pipeline } from '../../../domain/core/pipeline.js';
import type { Runtime } from '../../../domain/deployed.js';
import { systemMintKey } from '../../../domain/system.js';
import { mcpHttp } from '../../../mcp/http.js';
import { ok, read } from '../../helpers/calls.js';
import { freePort } from '../../helpers/ports.js';
import { vaultOrg, type VaultOrg } from './kit.js';

/*
 * The demo company's integration (cli/demo-integration.ts): the workspace's own /mcp connected as a remote server
 * with a reader key from the vault. On a loopback public URL whose port is free it stays valid: once a server runs
 * there, the agent's calls go through. Elsewhere it points at the port the demo used, and says so.
 */

let v: VaultOrg;
let w: VaultOrg;
beforeAll(async () => {
  [v, w] = await Promise.all([vaultOrg(), vaultOrg()]);
});
afterAll(() => Promise.all([v.close(), w.close()]));

async function deskAt(v: VaultOrg, publicUrl: string): Promise<DemoDesk> {
  const slug = (await v.s.runtime.db.query<{ slug: string }>('SELECT slug FROM orgs WHERE org_id = $1', [v.s.org.orgId]))[0]!.slug;
  const agent = await systemMintKey(v.s.runtime.db, slug, { name: 'Demo bookkeeping agent', tier: 'agent' });
  const approver = await systemMintKey(v.s.runtime.db, slug, { name: 'Demo finance lead', tier: 'approver' });
  const clock = { date: '2026-11-30', live: true, now: () => new Date() };
  // The server as configured: no host allowed, and this public URL.
  const deps = { ...v.s.runtime.deps, config: { ...v.s.runtime.deps.config, publicUrl, vault: { ...v.s.runtime.deps.config.vault, allowHosts: [] } } };
  const runtime = { ...v.s.runtime, deps } as Runtime;
  const pipeline = new Pipeline({ ...deps, clock }, v.s.runtime.pipeline.handlers, v.s.runtime.pipeline.reads);
  return new DemoDesk(runtime, pipeline, clock, v.s.org.orgId, { admin: v.s.org.adminKey, agent: agent.apiKey, approver: approver.apiKey });
}

describe('the demo integration', () => {
  it('connects the server’s own /mcp on the public URL’s port, and works there once a server runs', async () => {
    const port = await freePort();
    const desk = await deskAt(v, `http://127.0.0.1:${port}`);
    const [line] = await demoIntegration(desk, () => {});
    expect(line).toMatch(new RegExp(`^Integration: workspace \\(int_\\w+\\) is this server's own /mcp at http://127\\.0\\.0\\.1:${port}/mcp`));
    expect(line).toMatch(/\d+ read-only tools pinned, org_whoami called by the bookkeeping agent \(ok\)/);
    expect(line).toContain('INTEGRATION_ALLOW_HOSTS=127.0.0.1');
    const { integrations } = await read(v.s, 'integration.list', {});
    const workspace = integrations.find((i: { name: string }) => i.name === 'workspace');
    expect(workspace).toMatchObject({ url: `http://127.0.0.1:${port}/mcp`, state: 'active', calls24h: 1, errors24h: 0 });

    // The server comes up on that port (the test's deps allow 127.0.0.1): the agent's call goes through.
    const app = Fastify({ logger: false });
    await app.register(mcpHttp, { pipeline: v.s.runtime.pipeline });
    await app.listen({ host: '127.0.0.1', port });
    try {
      const out = await ok(v.s, 'integration.invokeTool', { integrationId: workspace.id, tool: 'org_whoami', arguments: {} });
      expect(out.status).toBe('ok');
    } finally {
      await app.close();
    }
  });

  it('on a public URL that is not loopback, points at the passing port and says calls will be unreachable', async () => {
    const desk = await deskAt(w, 'https://workspace.example.com');
    const [line] = await demoIntegration(desk, () => {});
    expect(line).toMatch(/at http:\/\/127\.0\.0\.1:\d+\/mcp/);
    expect(line).toContain('calls now answer unreachable');
    const { integrations } = await read(w.s, 'integration.list', {});
    const out = await ok(w.s, 'integration.invokeTool', { integrationId: integrations[0].id, tool: 'org_whoami', arguments: {} });
    expect(out.status).toBe('unreachable');
  });
});
