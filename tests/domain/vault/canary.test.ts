import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryServer, expectNoCanary, type CanaryServer } from '../../helpers/canary.js';
import { fileAndApprove, held, ok, refused } from '../../helpers/calls.js';
import { person, type Person } from '../../helpers/people.js';
import { vaultConfig } from './kit.js';

/*
 * Scenario 3: a canary secret put, leased and rotated through every path (granted, ungranted, over MCP, break-glass
 * with its hold, approval, retry and a reused proof), then looked for everywhere the server writes: every table
 * row of the org (as text and as hex, for bytea), every log line, every idempotency row, every MCP result, the
 * ledger (GET /events) and the AI audit. Only the callers that leased it ever see it.
 */

const CANARY = 'Quokka-Vault-Canary-7741';
const PURPOSE = 'Purpose-Canary-5520';
let s: CanaryServer;
let agent: Person;
let stranger: Person;
beforeAll(async () => {
  s = await canaryServer({ config: vaultConfig() });
  const scopes = ['org.read', 'org.write', 'credential.use', 'approval.request'];
  agent = await person(s, 'agent', { scopes, principalKind: 'agent' });
  stranger = await person(s, 'stranger', { scopes, principalKind: 'agent' });
});
afterAll(() => s.close());

async function tableDump(): Promise<string> {
  const tables = await s.runtime.db.query<{ table_name: string; has_org: boolean }>(
    `SELECT t.table_name, EXISTS (SELECT 1 FROM information_schema.columns c WHERE c.table_schema = 'public' AND c.table_name = t.table_name AND c.column_name = 'org_id') AS has_org
       FROM information_schema.tables t WHERE t.table_schema = 'public' AND t.table_type = 'BASE TABLE' ORDER BY 1`,
  );
  const out: string[] = [];
  for (const t of tables) {
    const rows = await s.runtime.db.query(
      `SELECT to_jsonb(x)::text AS row FROM "${t.table_name}" x ${t.has_org ? 'WHERE org_id = $1' : ''}`,
      t.has_org ? [s.org.orgId] : [],
    );
    for (const r of rows) out.push(`${t.table_name} ${String((r as { row: string }).row)}`);
  }
  return out.join('\n');
}

describe('scenario 3: the canary secret', () => {
  it('is seen only by those who lease it, and nowhere the server writes', async () => {
    const mcpTexts: string[] = [];
    const put = await ok(s, 'credential.put', { name: 'canary.secret', value: CANARY, leasableBy: [agent.id] });
    await refused(s, 'credential.lease', { name: 'canary.secret', purpose: PURPOSE }, 'NOT_FOUND', { key: stranger.key });
    const leased = await ok(s, 'credential.lease', { name: 'canary.secret', purpose: PURPOSE, ttlSeconds: 60 }, agent.key);
    expect(leased.value).toBe(CANARY);

    // MCP never lists, describes as callable, or calls a method that carries the value.
    const mcp = await s.mcp(agent.key);
    const tools = (await mcp.listTools()).tools.map((t) => t.name);
    expect(tools).not.toContain('credential_lease');
    expect(tools).not.toContain('credential_put');
    const adminMcp = await s.mcp();
    const adminTools = (await adminMcp.listTools()).tools.map((t) => t.name);
    for (const withheld of ['credential_put', 'credential_lease', 'settings_upsertSecret', 'settings_recordSecretRotation'])
      expect(adminTools).not.toContain(withheld);
    // invokeTool acts outside the server: an open-world tool, not read-only (read-only sessions do not list it).
    const invoke = (await adminMcp.listTools()).tools.find((t) => t.name === 'integration_invokeTool');
    expect(invoke?.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: true });
    const described = await mcp.callTool({ name: 'describe_method', arguments: { name: 'credential.lease' } });
    expect(JSON.stringify(described)).toMatch(/not served over MCP on any server/);
    const viaWrite = await mcp.callTool({ name: 'invoke_write', arguments: { name: 'credential.lease', params: { name: 'canary.secret', purpose: 'p' } } });
    expect(viaWrite.isError).toBe(true);
    expect(JSON.stringify(viaWrite)).toMatch(/not served over MCP/);
    mcpTexts.push(JSON.stringify(described), JSON.stringify(viaWrite));
    mcpTexts.push(JSON.stringify(await adminMcp.callTool({ name: 'credential_list', arguments: {} })));

    // Break-glass: hold, approve, retry with the proof, and the proof is single use.
    await ok(s, 'credential.put', { name: 'canary.secret', value: CANARY, approval: 'each_lease' });
    const params = { name: 'canary.secret', purpose: PURPOSE };
    const approval = await held(s, 'credential.lease', params, { key: agent.key, holdKind: 'credential.signature.hold' });
    const approvalId = await fileAndApprove(s, approval, { requester: agent.key });
    expect((await ok(s, 'credential.lease', { ...params, approvalId }, agent.key)).value).toBe(CANARY);
    await refused(s, 'credential.lease', { ...params, approvalId }, 'GOVERNANCE_NOT_READY', { key: agent.key });

    // The settings paths: a new value by upsert and by a recorded rotation (with an idempotency key).
    await ok(s, 'settings.upsertSecret', { name: 'canary.secret', value: `${CANARY}-2` }, undefined, 'upsert-1');
    await ok(s, 'settings.upsertSecret', { name: 'canary.secret', value: `${CANARY}-2` }, undefined, 'upsert-1');
    await ok(s, 'settings.recordSecretRotation', { credentialId: put.credential.id, value: `${CANARY}-3` });
    const listed = await ok(s, 'credential.list', {});
    expect(JSON.stringify(listed)).not.toContain(CANARY);

    const hex = Buffer.from(CANARY).toString('hex');
    expectNoCanary([CANARY, hex, Buffer.from(CANARY).toString('base64')], {
      'a table row of the org': await tableDump(),
      'a log line': s.logs(),
      'an idempotency row': await s.idempotencyText(),
      'an MCP result': mcpTexts.join('\n'),
      'the ledger (/events)': await s.ledgerText(),
    });
    expectNoCanary(PURPOSE, { 'the ledger (/events)': await s.ledgerText(), 'a log line': s.logs() });
  });
});
