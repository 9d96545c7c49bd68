import { ApiError } from '../../../protocol/errors.js';
import { integration as c } from '../../../protocol/methods/integration.js';
import type { Queryable } from '../../../db/types.js';
import { METHODS } from '../../../protocol/registry.js';
import { liveScopes } from '../../people/index.js';
import { handler } from '../../core/handler.js';
import type { Principal } from '../../core/auth.js';
import { INTEGRATION_SELECT, isAdmin, mayUse, toIntegration, toolsetVersionOf, type IntegrationRow } from './model.js';

/*
 * The integrations' reads: what exists (admins see all, others those they may use), the remote tools a principal
 * may call named <integration>__<tool>, and the version of that set, which moves only with connect, re-sync and
 * disconnect: an agent refetches its tools only when it moves.
 */

export const list = handler(c.list, async (ctx, p) => {
  const rows = await ctx.q.query<IntegrationRow & { calls: number; errors: number }>(
    `SELECT ${INTEGRATION_SELECT},
            (SELECT count(*)::int FROM tool_calls k WHERE k.org_id = i.org_id AND k.integration_id = i.integration_id AND k.at >= $4) AS calls,
            (SELECT count(*)::int FROM tool_calls k WHERE k.org_id = i.org_id AND k.integration_id = i.integration_id AND k.at >= $4
                AND k.record NOT LIKE '%"status":"ok"%') AS errors
       FROM integrations i
      WHERE i.org_id = $1 AND ($2::text IS NULL OR i.state = $2) AND ($3::text IS NULL OR i.name > $3)
      ORDER BY i.name LIMIT $5`,
    [ctx.orgId, p.state ?? null, p.cursor ?? null, new Date(ctx.deps.clock.now().getTime() - 86_400_000).toISOString(), p.limit + 1],
  );
  const visible = rows.filter((r) => mayUse(r, ctx.principal));
  const page = visible.slice(0, p.limit);
  return {
    integrations: page.map((r) => ({ ...toIntegration(r), calls24h: Number(r.calls), errors24h: Number(r.errors) })),
    nextCursor: rows.length > p.limit ? rows[p.limit - 1].name : null,
  };
});

interface ToolRow {
  integration_id: string;
  integration_name: string;
  access: string[];
  name: string;
  definition: { description?: string; inputSchema?: Record<string, unknown> };
  sha256: string;
  read_only: boolean;
}

/** The allowed tools of the active integrations `who` may use, in name order. */
export async function callableTools(q: Queryable, orgId: string, who: Principal, integrationId?: string): Promise<ToolRow[]> {
  const rows = await q.query<ToolRow>(
    `SELECT t.integration_id, i.name AS integration_name, i.access, t.name, t.definition, t.sha256, t.read_only
       FROM integration_tools t JOIN integrations i ON i.org_id = t.org_id AND i.integration_id = t.integration_id
      WHERE t.org_id = $1 AND t.allowed AND i.state = 'active' AND ($2::text IS NULL OR t.integration_id = $2)
      ORDER BY i.name, t.name`,
    [orgId, integrationId ?? null],
  );
  if (!who.scopes.has(INVOKE_SCOPE)) return [];
  return rows.filter((r) => mayUse(r, who));
}

/** The scope invokeTool needs: a principal without it on any key may call no remote tool. */
const INVOKE_SCOPE = METHODS.get('integration.invokeTool')!.scope;

async function principalOf(ctx: { q: Queryable; orgId: string; principal: Principal }, principalId: string | undefined): Promise<Principal> {
  if (principalId === undefined || principalId === ctx.principal.id) return ctx.principal;
  if (!isAdmin(ctx.principal)) throw new ApiError('FORBIDDEN_SCOPE', `missing scope admin for principalId: list your own tools (leave principalId out)`);
  // Another principal's view: what its live keys may do together (admin reaches every integration), not the admin's own reach.
  const [row] = await ctx.q.query<{ kind: Principal['kind']; name: string }>('SELECT kind, name FROM principals WHERE org_id = $1 AND principal_id = $2', [
    ctx.orgId,
    principalId,
  ]);
  if (!row) throw new ApiError('NOT_FOUND', `principal ${principalId} not found`);
  const scopes = (await liveScopes(ctx.q, ctx.orgId, principalId)) ?? new Set<string>();
  return { ...ctx.principal, id: principalId, kind: row.kind, name: row.name, tier: null, scopes };
}

export const listAgentTools = handler(c.listAgentTools, async (ctx, p) => {
  const who = await principalOf(ctx, p.principalId);
  const all = await callableTools(ctx.q, ctx.orgId, who, p.integrationId);
  const named = all.map((t) => ({ ...t, full: `${t.integration_name}__${t.name}` }));
  const after = named.filter((t) => p.cursor === undefined || t.full > p.cursor);
  const page = after.slice(0, p.limit);
  return {
    tools: page.map((t) => ({
      name: t.full,
      integrationId: t.integration_id,
      tool: t.name,
      description: String(t.definition.description ?? ''),
      readOnly: t.read_only,
      sha256: t.sha256,
      inputSchema: p.withSchemas ? (t.definition.inputSchema ?? { type: 'object' }) : null,
    })),
    toolsetVersion: toolsetVersionOf(all.map((t) => ({ name: `${t.integration_id}/${t.name}`, sha256: t.sha256 }))),
    nextCursor: after.length > p.limit ? page[page.length - 1].full : null,
  };
});

export const toolsetVersion = handler(c.toolsetVersion, async (ctx) => {
  const all = await callableTools(ctx.q, ctx.orgId, ctx.principal);
  return { toolsetVersion: toolsetVersionOf(all.map((t) => ({ name: `${t.integration_id}/${t.name}`, sha256: t.sha256 }))), tools: all.length };
});
