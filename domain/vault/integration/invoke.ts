import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { ApiError, conflict, notFound } from '../../../protocol/errors.js';
import { canonicalJson, sha256Hex } from '../../../protocol/hashing.js';
import { integration as c } from '../../../protocol/methods/integration.js';
import { handler } from '../../core/handler.js';
import { requireKeyring, vaultConfig } from '../keys.js';
import { checkUrl } from './guard.js';
import type { Deps } from '../../core/deps.js';
import { openSealed, type VersionRow } from '../store.js';
import { headersFor, mayUse, toolChain, type IntegrationRow } from './model.js';
import { clientPool } from './pool.js';
import { classify, listTools } from './remote.js';

/*
 * invokeTool (R: no transaction around the remote, no ledger event). One read gathers what the checks need; in order: the caller may use the integration
 * and the tool is pinned and allowed (else NOT_FOUND), 60 calls a minute, the arguments fit the pinned schema
 * (BAD_REQUEST arguments.<path>), the live definitions still match the pins when last compared over 60 s ago
 * (else CONFLICT: nothing is sent), then the call over a kept session (pool.ts). The credential is opened only into the transport header and
 * scrubbed from what comes back; the tool chain records hashes of arguments and result and the status.
 */

export const MAX_RESULT_BYTES = 256 * 1024;
const REDACTED = '[redacted]';

const validator = new AjvJsonSchemaValidator();
const MAX_VALIDATORS = 1000;
const validators = new Map<string, ReturnType<typeof validator.getValidator>>();

/**
 * The pin's compiled validator, kept by its hash: compiling costs about a millisecond, and Ajv keeps every schema
 * object it compiled. A remote's `$id` is dropped, so two integrations' schemas never meet in Ajv's registry.
 */
function validatorOf(pin: { sha256: string; definition: { inputSchema?: Record<string, unknown> } }) {
  let check = validators.get(pin.sha256);
  if (!check) {
    const { $id: _id, ...schema } = pin.definition.inputSchema ?? { type: 'object' };
    check = validator.getValidator(schema);
    if (validators.size >= MAX_VALIDATORS) validators.delete(validators.keys().next().value as string);
    validators.set(pin.sha256, check);
  }
  return check;
}

/** `data/a/0/b must be string` (ajv's errorsText) as `arguments.a.0.b: must be string`. */
export function argumentsIssue(errorText: string): string {
  const first = errorText.split(/, (?=data[/ ])/)[0];
  const m = /^data(\S*) (.*)$/.exec(first);
  if (!m) return `arguments: ${first.slice(0, 200)}`;
  const path = m[1].split('/').filter(Boolean);
  const required = /^must have required property '(.+)'$/.exec(m[2]);
  if (required) return `${['arguments', ...path, required[1]].join('.')}: required`;
  return `${['arguments', ...path].join('.')}: ${m[2]}`;
}

/** Every form the secret could come back in: as is, base64, base64url, URL-encoded (each also JSON-escaped). */
function secretForms(secret: string): string[] {
  const b = Buffer.from(secret, 'utf8');
  const forms = [secret, b.toString('base64'), b.toString('base64').replace(/=+$/, ''), b.toString('base64url'), encodeURIComponent(secret)];
  return [...new Set(forms.flatMap((f) => [f, JSON.stringify(f).slice(1, -1)]))].filter((f) => f.length >= 4).sort((x, y) => y.length - x.length);
}

export function scrub(text: string, secret: string | null): string {
  if (!secret) return text;
  let out = text;
  for (const form of secretForms(secret)) out = out.split(form).join(REDACTED);
  return out;
}

/** Everything a call needs, read in one statement: the integration, the pin, the last minute's calls, the secret's current version. */
interface CallRow extends Pick<
  IntegrationRow,
  'integration_id' | 'url' | 'auth_kind' | 'auth_header' | 'credential_id' | 'access' | 'state' | 'toolset_version' | 'checked_at'
> {
  definition: { inputSchema?: Record<string, unknown> } | null;
  sha256: string | null;
  recent: number;
  credential_state: string | null;
  current_version: number | null;
  kek_id: string | null;
  wrapped_dek: Uint8Array | null;
  sealed: Uint8Array | null;
}

const CALL_ROW = `SELECT i.integration_id, i.url, i.auth_kind, i.auth_header, i.credential_id, i.access, i.state, i.toolset_version, i.checked_at,
       t.definition, t.sha256,
       (SELECT count(*)::int FROM (SELECT 1 FROM tool_calls k WHERE k.org_id = i.org_id AND k.integration_id = i.integration_id AND k.at >= $4 LIMIT $5) k) AS recent,
       c.state AS credential_state, c.current_version, v.kek_id, v.wrapped_dek, v.sealed
  FROM integrations i
  LEFT JOIN integration_tools t ON t.org_id = i.org_id AND t.integration_id = i.integration_id AND t.name = $3 AND t.allowed
  LEFT JOIN credentials c ON c.org_id = i.org_id AND c.credential_id = i.credential_id
  LEFT JOIN credential_versions v ON v.org_id = c.org_id AND v.credential_id = c.credential_id AND v.version = c.current_version AND v.sealed IS NOT NULL
 WHERE i.org_id = $1 AND i.integration_id = $2`;

/** The credential's value for the transport header (null without auth), refused as authHeaders refuses. */
async function secretOf(deps: Deps, orgId: string, row: CallRow): Promise<string | null> {
  if (row.auth_kind === 'none' || !row.credential_id) return null;
  if (row.credential_state === null) throw new ApiError('BAD_REQUEST', `auth.credentialId: credential ${row.credential_id} not found`);
  if (row.credential_state !== 'active') {
    throw conflict(`the integration's secret ${row.credential_id} is ${row.credential_state}: nothing was sent; an admin puts a value again (credential.put)`);
  }
  if (row.sealed === null) throw conflict(`the integration's secret ${row.credential_id} has no value kept: nothing was sent; an admin puts one`);
  return openSealed(await requireKeyring(deps), orgId, row.credential_id, Number(row.current_version), row as VersionRow);
}

export const invokeTool = handler(c.invokeTool, async (ctx, p) => {
  const cfg = vaultConfig(ctx.deps);
  // Business time (deps.clock), as the tool chain records each call's time: the minute, the recheck, the 24 hours.
  const now = ctx.deps.clock.now();
  const since = new Date(now.getTime() - 60_000).toISOString();
  const [row] = await ctx.q.query<CallRow>(CALL_ROW, [ctx.orgId, p.integrationId, p.tool, since, cfg.callsPerMinute]);
  if (!row || !mayUse(row, ctx.principal)) throw notFound(`integration ${p.integrationId}`);
  if (row.state !== 'active')
    throw conflict(`integration ${row.integration_id} is disconnected: nothing was sent; an admin connects it again (integration.connect)`);
  if (!row.definition || !row.sha256) {
    throw notFound(`tool ${p.tool} among the allowed tools of integration ${row.integration_id} (integration.listAgentTools lists them)`);
  }
  const pin = { definition: row.definition, sha256: row.sha256 };
  if (Number(row.recent) >= cfg.callsPerMinute) {
    throw new ApiError(
      'RATE_LIMITED',
      `integration ${row.integration_id} had ${cfg.callsPerMinute} calls in the last minute: nothing was sent; retry in a minute`,
      {
        retryAfterSeconds: 60,
      },
    );
  }
  const checked = validatorOf(pin)(p.arguments);
  if (!checked.valid) throw new ApiError('BAD_REQUEST', argumentsIssue(checked.errorMessage ?? 'does not match the schema'));
  const url = checkUrl(row.url, cfg.allowHosts);
  const secret = await secretOf(ctx.deps, ctx.orgId, row);
  const headers = headersFor({ kind: row.auth_kind, header: row.auth_header }, secret);
  const recheck = now.getTime() - new Date(row.checked_at).getTime() >= cfg.recheckMs;
  const session = {
    orgId: ctx.orgId,
    integrationId: row.integration_id,
    toolsetVersion: row.toolset_version,
    url: row.url,
    auth: `${row.auth_kind}:${row.auth_header ?? ''}:${row.credential_id ?? ''}:${row.current_version ?? ''}`,
  };
  const started = performance.now();
  type Outcome = { status: 'ok' | 'tool_error' | 'timeout' | 'unreachable' | 'auth_failed'; body: Record<string, unknown> | null; error: string | null };
  let outcome: Outcome;
  try {
    outcome = await clientPool(ctx.deps).use(session, { url, headers, allowHosts: cfg.allowHosts }, cfg.timeoutMs, async (client) => {
      if (recheck) {
        const live = (await listTools(client, cfg.timeoutMs, 500)).find((t) => t.name === p.tool);
        if (!live || live.sha256 !== pin.sha256) {
          throw conflict(
            `tool ${p.tool} of integration ${row.integration_id} no longer matches its pinned definition (the server changed or dropped it): nothing was sent; an admin reviews it and re-syncs (integration.connect with integrationId)`,
          );
        }
        await ctx.q.query('UPDATE integrations SET checked_at = $3 WHERE org_id = $1 AND integration_id = $2', [
          ctx.orgId,
          row.integration_id,
          now.toISOString(),
        ]);
      }
      const result = await client.callTool({ name: p.tool, arguments: p.arguments }, undefined, { timeout: cfg.timeoutMs });
      return {
        status: result.isError ? 'tool_error' : 'ok',
        body: result,
        error: result.isError ? 'the tool reported an error' : null,
      };
    });
  } catch (err) {
    if (err instanceof ApiError) throw err;
    const failure = classify(err);
    outcome = { status: failure.status, body: null, error: scrub(failure.message, secret) };
  }
  let text = scrub(JSON.stringify({ content: outcome.body?.content ?? [], structuredContent: outcome.body?.structuredContent ?? null }), secret);
  let truncated = false;
  if (Buffer.byteLength(text, 'utf8') > MAX_RESULT_BYTES) {
    truncated = true;
    const cut = Buffer.from(text, 'utf8')
      .subarray(0, MAX_RESULT_BYTES - 1024)
      .toString('utf8');
    text = JSON.stringify({ content: [{ type: 'text', text: cut }], structuredContent: null });
  }
  const shown = JSON.parse(text) as { content: Record<string, unknown>[]; structuredContent: Record<string, unknown> | null };
  const latencyMs = Math.round(performance.now() - started);
  const appended = await ctx.deps.db.tx((q) =>
    toolChain.append(
      q,
      ctx.orgId,
      {
        integrationId: row.integration_id,
        tool: p.tool,
        actor: ctx.principal.id,
        argsHash: sha256Hex(canonicalJson(p.arguments)),
        resultHash: outcome.body ? sha256Hex(text) : null,
        status: outcome.status,
        latencyMs,
        truncated,
      },
      ctx.deps.clock.now().toISOString(),
    ),
  );
  return { callId: appended.id, status: outcome.status, content: shown.content, structuredContent: shown.structuredContent, truncated, error: outcome.error };
});
