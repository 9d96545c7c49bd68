import Fastify from 'fastify';
import { mcpHttp } from '../mcp/http.js';
import { Pipeline } from '../domain/core/pipeline.js';
import type { DemoDesk } from './demo.js';

/*
 * Harbour Lane's integration (docs/families/runtime.md, Secrets and integrations): the workspace's own MCP endpoint
 * connected as a remote server, read through a reader key kept in the vault. The demo serves /mcp itself while it
 * connects (the server is not listening yet): on the public URL's port when that URL is loopback and the port is
 * free, so the integration keeps working once the server runs there; otherwise on a passing port, and the
 * integration is left pointing at it (calls then answer unreachable until it is re-pointed). Integrations never
 * reach loopback unless INTEGRATION_ALLOW_HOSTS names it: the demo allows it for its own calls only.
 */

interface RemoteTool {
  tool: string;
  inputSchema: { required?: string[] } | null;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export async function demoIntegration(desk: DemoDesk, progress: (line: string) => void): Promise<string[]> {
  desk.live();
  progress('Integration: the workspace’s own MCP endpoint connected as a remote server, its read-only tools pinned, one tool called');
  // A reader key of the bookkeeping agent: what the integration may read is what that agent may read.
  const agentId = await desk.agentId();
  const reader = await desk.call('org.mintApiKey', { name: 'Workspace integration (reader)', tier: 'reader', principalId: agentId });
  const stored = await desk.call('credential.put', { name: 'workspace.mcp-key', value: reader.apiKey }).catch((err: Error) => err);
  if (stored instanceof Error) {
    if (/vault is sealed/.test(stored.message)) return ['Integration: skipped (PostgreSQL without VAULT_MASTER_KEYS: the vault is sealed)'];
    throw stored;
  }

  const deps = desk.runtime.deps;
  const publicUrl = new URL(deps.config.publicUrl);
  const onPublic = LOOPBACK.has(publicUrl.hostname) ? await serveMcp(desk, Number(publicUrl.port || 80)) : null;
  const stays = onPublic !== null;
  const app = onPublic ?? (await serveMcp(desk, 0))!;
  const address = app.server.address();
  const url = stays ? `${publicUrl.origin}/mcp` : `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/mcp`;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  // The demo's calls may reach this loopback endpoint; the server's own guard stays as configured.
  const vault = { ...deps.config.vault, allowHosts: [...(deps.config.vault?.allowHosts ?? []), host] };
  const allowed = new Pipeline({ ...deps, clock: desk.clock, config: { ...deps.config, vault } }, desk.pipeline.handlers, desk.pipeline.reads);
  const call = (method: string, params: Record<string, unknown>, key = desk.keys.admin) => desk.callOn(allowed, method, params, key);
  try {
    const { integration } = await call('integration.connect', {
      name: 'workspace',
      url,
      auth: { kind: 'bearer', credentialId: stored.credential.id },
    });
    const { tools } = await call('integration.listAgentTools', { integrationId: integration.id, withSchemas: true }, desk.keys.agent);
    // Who the key is: a read that takes no arguments.
    const first = tools.find((t: { tool: string }) => /whoami/.test(t.tool)) ?? tools.find((t: RemoteTool) => !t.inputSchema?.required?.length);
    const invoked = first ? await call('integration.invokeTool', { integrationId: integration.id, tool: first.tool, arguments: {} }, desk.keys.agent) : null;
    const later = stays
      ? `it works once the server runs at ${publicUrl.origin} with INTEGRATION_ALLOW_HOSTS=${host} (integrations never reach loopback otherwise)`
      : `the demo served it on a passing port, so calls now answer unreachable: re-point it with integration.connect {integrationId, url} at a server's /mcp`;
    return [
      `Integration: workspace (${integration.id}) is this server's own /mcp at ${url}, read with the bookkeeping agent's reader key kept in the vault;` +
        ` ${tools.length} read-only tools pinned${invoked ? `, ${first.tool} called by the bookkeeping agent (${invoked.status})` : ''}; ${later}.` +
        ` Try integration.list, integration.listAgentTools, integration.invokeTool.`,
    ];
  } finally {
    await app.close();
  }
}

/** /mcp over the runtime's pipeline on 127.0.0.1 at this port; null when the port is taken (a server runs there). */
async function serveMcp(desk: DemoDesk, port: number) {
  const app = Fastify({ logger: false });
  await app.register(mcpHttp, { pipeline: desk.runtime.pipeline });
  try {
    await app.listen({ host: '127.0.0.1', port });
    return app;
  } catch (err) {
    await app.close();
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE' || (err as NodeJS.ErrnoException).code === 'EACCES') return null;
    throw err;
  }
}
