import type { Queryable } from '../../../db/types.js';
import { ApiError, conflict, notFound } from '../../../protocol/errors.js';
import { sha256Hex } from '../../../protocol/hashing.js';
import { RecordChain } from '../../../ledger/record-chain.js';
import type { Principal } from '../../core/auth.js';
import type { Deps } from '../../core/deps.js';
import { requireKeyring } from '../keys.js';
import { findCredential, iso, openVersion } from '../store.js';

/*
 * Integration rows, who may use them, the transport header their credential makes, and the tool chain: one record
 * per invokeTool with hashes of arguments and result, never either (GET /ops?source=tools, `cli verify`).
 */

export interface IntegrationRow {
  integration_id: string;
  name: string;
  url: string;
  auth_kind: 'none' | 'bearer' | 'header';
  auth_header: string | null;
  credential_id: string | null;
  allow_tools: string[] | null;
  access: string[];
  state: 'active' | 'disconnected';
  toolset_version: string;
  server_name: string;
  server_version: string;
  connected_at: string;
  checked_at: string;
  updated_at: string;
  listed: number;
  allowed: number;
}

export const INTEGRATION_SELECT = `i.integration_id, i.name, i.url, i.auth_kind, i.auth_header, i.credential_id, i.allow_tools, i.access, i.state,
  i.toolset_version, i.server_name, i.server_version, i.connected_at, i.checked_at, i.updated_at,
  (SELECT count(*)::int FROM integration_tools t WHERE t.org_id = i.org_id AND t.integration_id = i.integration_id) AS listed,
  (SELECT count(*)::int FROM integration_tools t WHERE t.org_id = i.org_id AND t.integration_id = i.integration_id AND t.allowed) AS allowed`;

export function toIntegration(r: IntegrationRow) {
  return {
    id: r.integration_id,
    name: r.name,
    url: r.url,
    host: new URL(r.url).host,
    auth: { kind: r.auth_kind, header: r.auth_header, credentialId: r.credential_id },
    allowTools: r.allow_tools,
    access: r.access,
    state: r.state,
    toolsetVersion: r.toolset_version,
    server: { name: r.server_name, version: r.server_version },
    tools: { listed: Number(r.listed), allowed: Number(r.allowed) },
    connectedAt: iso(r.connected_at),
    updatedAt: iso(r.updated_at),
  };
}

export const isAdmin = (p: Principal) => p.scopes.has('admin');
export const mayUse = (r: Pick<IntegrationRow, 'access'>, p: Principal) => isAdmin(p) || r.access.includes('*') || r.access.includes(p.id);

export async function loadIntegration(q: Queryable, orgId: string, integrationId: string, lock = ''): Promise<IntegrationRow> {
  const [row] = await q.query<IntegrationRow>(`SELECT ${INTEGRATION_SELECT} FROM integrations i WHERE i.org_id = $1 AND i.integration_id = $2 ${lock}`, [
    orgId,
    integrationId,
  ]);
  if (!row) throw notFound(`integration ${integrationId}`);
  return row;
}

/** The toolset version of a set of pins: moves only when a pin is added, dropped or changed. */
export const toolsetVersionOf = (pins: readonly { name: string; sha256: string }[]): string =>
  sha256Hex(
    pins
      .map((p) => `${p.name}\n${p.sha256}`)
      .sort()
      .join('\n'),
  );

/** The headers that carry the integration's credential, and the secret itself for scrubbing (null without one). */
export async function authHeaders(
  deps: Deps,
  q: Queryable,
  orgId: string,
  auth: { kind: 'none' | 'bearer' | 'header'; header?: string | null; credentialId?: string | null },
): Promise<{ headers: Record<string, string>; secret: string | null }> {
  if (auth.kind === 'none' || !auth.credentialId) return { headers: {}, secret: null };
  const cred = await findCredential(q, orgId, { credentialId: auth.credentialId });
  if (!cred) throw new ApiError('BAD_REQUEST', `auth.credentialId: credential ${auth.credentialId} not found`);
  if (cred.state !== 'active') {
    throw conflict(`the integration's secret ${cred.credential_id} is ${cred.state}: nothing was sent; an admin puts a value again (credential.put)`);
  }
  const ring = await requireKeyring(deps);
  const secret = await openVersion(q, ring, orgId, cred.credential_id, Number(cred.current_version));
  if (secret === null) throw conflict(`the integration's secret ${cred.credential_id} has no value kept: nothing was sent; an admin puts one`);
  return { headers: headersFor(auth, secret), secret };
}

/** The transport header a secret makes. */
export function headersFor(auth: { kind: 'none' | 'bearer' | 'header'; header?: string | null }, secret: string | null): Record<string, string> {
  if (auth.kind === 'none' || secret === null) return {};
  return auth.kind === 'bearer' ? { Authorization: `Bearer ${secret}` } : { [auth.header!]: secret };
}

/** One invokeTool, as the tool chain keeps it. */
export interface ToolCallRecord {
  integrationId: string;
  tool: string;
  actor: string;
  argsHash: string;
  resultHash: string | null;
  status: string;
  latencyMs: number;
  truncated: boolean;
}

export const toolChain = new RecordChain<ToolCallRecord>(
  { table: 'tool_calls', heads: 'tool_call_heads', idPrefix: 'tcl', label: 'tool chain', columns: (r) => ({ integration_id: r.integrationId }) },
  ['integration_id'],
);

/** The notifier topic connect and disconnect publish {orgId} on at commit: MCP sessions then re-list their tools. */
export const TOOLSET_MOVED = 'integration.toolset';
