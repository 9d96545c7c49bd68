import { badRequest, conflict } from '../../../protocol/errors.js';
import { integration as c, MAX_TOOLS } from '../../../protocol/methods/integration.js';
import { handler, type PrepareCtx } from '../../core/handler.js';
import { sha256Hex } from '../../../protocol/hashing.js';
import { actionClassOf } from '../../approval/index.js';
import { vaultConfig } from '../keys.js';
import { checkUrl } from './guard.js';
import { authHeaders, INTEGRATION_SELECT, loadIntegration, TOOLSET_MOVED, toIntegration, toolsetVersionOf, type IntegrationRow } from './model.js';
import { clientPool } from './pool.js';
import { listTools, RemoteError, withClient, type RemoteTool } from './remote.js';

/*
 * connect and disconnect. connect asks the server for its tools (initialize + tools/list, at most 500, 15 s) in
 * prepare, before the call's transaction opens (a remote server never holds a transaction), and writes nothing
 * when that fails. Each definition is pinned; allowTools picks which the agents may call (default: the read-only
 * ones). An agent connecting or re-syncing holds for a human: it changes what every agent can reach.
 */

interface Listed {
  tools: RemoteTool[];
  server: { name: string; version: string };
}

async function listRemote(ctx: PrepareCtx, p: { url: string; integrationId?: string; auth: Parameters<typeof authHeaders>[3] }): Promise<Listed> {
  const cfg = vaultConfig(ctx.deps);
  const url = checkUrl(p.url, cfg.allowHosts);
  // A re-sync of an integration that is not there is refused before the server is asked anything.
  if (p.integrationId) await loadIntegration(ctx.db, ctx.orgId, p.integrationId);
  const { headers } = await authHeaders(ctx.deps, ctx.db, ctx.orgId, p.auth);
  try {
    return await withClient({ url, headers, allowHosts: cfg.allowHosts }, cfg.timeoutMs, async (client) => {
      const tools = await listTools(client, cfg.timeoutMs, MAX_TOOLS);
      const info = client.getServerVersion();
      return { tools, server: { name: String(info?.name ?? ''), version: String(info?.version ?? '') } };
    });
  } catch (err) {
    if (!(err instanceof RemoteError)) throw err;
    // Nothing is written; the remote's words are not echoed beyond what classify kept.
    if (err.status === 'auth_failed') throw badRequest('auth', `${err.message}; check the secret (credential.put) and retry`);
    throw badRequest('url', `${err.message}; nothing was written`);
  }
}

function allowed(t: RemoteTool, allowTools: string[] | null): boolean {
  if (allowTools === null) return t.readOnly;
  return allowTools.includes('*') || allowTools.includes(t.name);
}

export const connect = handler(
  c.connect,
  async (ctx, p, listed: Listed) => {
    const allowTools = p.allowTools ?? null;
    const unknown = allowTools?.filter((n) => n !== '*' && !listed.tools.some((t) => t.name === n)) ?? [];
    if (unknown.length) throw badRequest('allowTools', `the server lists no tool ${unknown.slice(0, 5).join(', ')}`);
    const pins = listed.tools.map((t) => ({ ...t, allowed: allowed(t, allowTools) }));
    const version = toolsetVersionOf(pins.filter((t) => t.allowed));
    const auth = p.auth;
    const credentialId = auth.kind === 'none' ? null : auth.credentialId;
    const header = auth.kind === 'header' ? auth.header : null;
    const access = p.access ?? ['*'];
    const now = ctx.deps.clock.now().toISOString();
    let prior: IntegrationRow | undefined;
    if (p.integrationId) prior = await loadIntegration(ctx.q, ctx.orgId, p.integrationId, 'FOR UPDATE');
    const [byName] = await ctx.q.query<{ integration_id: string }>('SELECT integration_id FROM integrations WHERE org_id = $1 AND name = $2', [
      ctx.orgId,
      p.name,
    ]);
    if (byName && byName.integration_id !== p.integrationId) {
      throw conflict(`the name ${p.name} is taken by ${byName.integration_id}: re-sync that one (integrationId) or choose another name`);
    }
    const same =
      prior &&
      prior.state === 'active' &&
      prior.toolset_version === version &&
      prior.url === p.url &&
      prior.auth_kind === auth.kind &&
      prior.credential_id === credentialId &&
      prior.auth_header === header &&
      JSON.stringify(prior.allow_tools) === JSON.stringify(allowTools) &&
      JSON.stringify(prior.access) === JSON.stringify(access);
    // A new integration's id follows from its name (unique in the org), so a held connect and its retry name the same subject.
    const integrationId = prior?.integration_id ?? `int_${sha256Hex(`${ctx.orgId}\n${p.name}`).slice(0, 20)}`;
    const host = new URL(p.url).host;
    const counts = { listed: pins.length, allowed: pins.filter((t) => t.allowed).length };
    if (same && prior) {
      await ctx.emit('integration.connection.connect', integrationId, { integrationId, host, ...counts, toolsetVersion: version, changed: false, noop: true });
      return { integration: toIntegration(prior), toolsetVersion: version, changed: false };
    }
    let approvalId: string | null = null;
    if (ctx.principal.kind === 'agent') {
      const proof = await ctx.requireSignature({
        actionClass: actionClassOf(ctx.method.name),
        subjectId: integrationId,
        summary: `An agent ${prior ? 're-syncs' : 'connects'} integration ${p.name} at ${host}: ${counts.allowed} of ${counts.listed} tool(s) callable by agents`,
        params: p,
      });
      approvalId = proof.approvalId;
    }
    await ctx.q.query(
      `INSERT INTO integrations (org_id, integration_id, name, url, auth_kind, auth_header, credential_id, allow_tools, access, state, toolset_version,
                                 server_name, server_version, connected_at, connected_by, checked_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::text[], 'active', $10, $11, $12, $13, $14, $13, $13)
       ON CONFLICT (org_id, integration_id) DO UPDATE SET name = excluded.name, url = excluded.url, auth_kind = excluded.auth_kind,
         auth_header = excluded.auth_header, credential_id = excluded.credential_id, allow_tools = excluded.allow_tools, access = excluded.access,
         state = 'active', toolset_version = excluded.toolset_version, server_name = excluded.server_name, server_version = excluded.server_version,
         checked_at = excluded.checked_at, updated_at = excluded.updated_at`,
      [
        ctx.orgId,
        integrationId,
        p.name,
        p.url,
        auth.kind,
        header,
        credentialId,
        allowTools === null ? null : JSON.stringify(allowTools),
        access,
        version,
        listed.server.name.slice(0, 200),
        listed.server.version.slice(0, 100),
        now,
        ctx.principal.id,
      ],
    );
    await ctx.q.query('DELETE FROM integration_tools WHERE org_id = $1 AND integration_id = $2', [ctx.orgId, integrationId]);
    if (pins.length) {
      await ctx.q.query(
        `INSERT INTO integration_tools (org_id, integration_id, name, definition, sha256, read_only, allowed)
         SELECT $1, $2, t.name, t.definition, t.sha256, t.read_only, t.allowed
           FROM jsonb_to_recordset($3::jsonb) AS t(name text, definition jsonb, sha256 text, read_only boolean, allowed boolean)`,
        [
          ctx.orgId,
          integrationId,
          JSON.stringify(pins.map((t) => ({ name: t.name, definition: t.definition, sha256: t.sha256, read_only: t.readOnly, allowed: t.allowed }))),
        ],
      );
    }
    const [saved] = await ctx.q.query<IntegrationRow>(`SELECT ${INTEGRATION_SELECT} FROM integrations i WHERE i.org_id = $1 AND i.integration_id = $2`, [
      ctx.orgId,
      integrationId,
    ]);
    // Sessions re-list their tools at commit (the event is the call's last statement).
    await ctx.deps.notifier.publish(ctx.q, TOOLSET_MOVED, { orgId: ctx.orgId });
    await ctx.emit('integration.connection.connect', integrationId, {
      integrationId,
      host,
      ...counts,
      toolsetVersion: version,
      resync: Boolean(prior),
      changed: true,
      approvalId,
    });
    return { integration: toIntegration(saved!), toolsetVersion: version, changed: true };
  },
  {
    // The remote is asked before the transaction opens: a slow or hostile server never holds one.
    prepare: (ctx, p) => listRemote(ctx, p),
  },
);

export const disconnect = handler(c.disconnect, async (ctx, p) => {
  const row = await loadIntegration(ctx.q, ctx.orgId, p.integrationId, 'FOR UPDATE');
  if (row.state === 'disconnected') {
    await ctx.emit('integration.connection.disconnect', row.integration_id, { integrationId: row.integration_id, changed: false, noop: true });
    return { integration: toIntegration(row), changed: false };
  }
  const now = ctx.deps.clock.now().toISOString();
  await ctx.q.query(`UPDATE integrations SET state = 'disconnected', updated_at = $3 WHERE org_id = $1 AND integration_id = $2`, [
    ctx.orgId,
    row.integration_id,
    now,
  ]);
  await ctx.deps.notifier.publish(ctx.q, TOOLSET_MOVED, { orgId: ctx.orgId });
  await ctx.emit('integration.connection.disconnect', row.integration_id, { integrationId: row.integration_id, changed: true });
  // Its kept sessions go now (a call racing this one opens none: it reads the integration disconnected).
  clientPool(ctx.deps).closeIntegration(ctx.orgId, row.integration_id);
  return { integration: toIntegration({ ...row, state: 'disconnected', updated_at: now }), changed: true };
});
