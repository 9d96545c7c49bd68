import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryServer, expectNoCanary, type CanaryServer } from '../../../helpers/canary.js';
import { expectOk } from '../../../helpers/calls.js';

/*
 * The redaction canary across the ten people families (docs/security.md, Free text stays out of the ledger): a canary
 * in every free-text field of every write, over HTTP and MCP, including refused inputs. No event, log line (gateway
 * at trace and the runtime's logger) or stored idempotency frame shows it, and no secret (an invitation link, a key
 * shown on /join) reaches the ledger, the logs or an idempotency row in the clear.
 */

const CANARY = 'zqcanary4410';
let s: CanaryServer;
beforeAll(async () => {
  s = await canaryServer();
});
afterAll(() => s.close());

const ok = async (method: string, params: Record<string, unknown>, idem?: string) => expectOk(method, await s.client.rpc(method, params, { idem }));

describe('people: the redaction canary', () => {
  it('free text, refused inputs and secrets stay out of events, logs and idempotency rows; MCP errors do not echo them', async () => {
    const me = (await s.client.get('org/whoami')).body.principal.id as string;
    const team = (await ok('team.create', { name: `Ops ${CANARY}` })).team;
    await ok('team.update', { teamId: team.id, name: `Ops two ${CANARY}` });
    const dan = (
      await ok('member.create', { name: `Dan ${CANARY}`, email: `dan.${CANARY}@example.com`, title: `Clerk ${CANARY}`, teamIds: [team.id] }, 'canary-create')
    ).member;
    await ok('member.update', { memberId: dan.id, title: `Senior ${CANARY}`, office: `Level 3 ${CANARY}` });
    await ok('profile.update', {
      memberId: dan.id,
      headline: `Headline ${CANARY}`,
      bio: `Bio ${CANARY}`,
      pronouns: `they ${CANARY}`,
      links: [{ label: `Site ${CANARY}`, url: `https://example.com/${CANARY}` }],
      expertise: [`Payables ${CANARY}`],
    });
    await ok('profile.addSection', { memberId: dan.id, title: `Section ${CANARY}`, body: `Body ${CANARY}` }, 'canary-section');
    const agent = await ok('persona.generateAgentId', {
      name: `Bot ${CANARY}`,
      role: `Clerk ${CANARY}`,
      goal: `Goal ${CANARY}`,
      backstory: `Story ${CANARY}`,
      tone: `plain ${CANARY}`,
      instructions: [`Rule ${CANARY}`],
      sponsorId: me,
    });
    await ok('persona.editField', { agentId: agent.agent.id, field: 'goal', value: `New goal ${CANARY}` });
    await ok('persona.regenerate', { agentId: agent.agent.id, mode: 'template' });
    const invited = await ok(
      'invitation.create',
      { email: `erin.${CANARY}@example.com`, role: 'member', name: `Erin ${CANARY}`, message: `Welcome ${CANARY}` },
      'canary-invite',
    );
    const resent = await ok('invitation.resend', { invitationId: invited.invitation.id });
    await ok('billing.update', { plan: 'team', cycle: 'monthly', seats: 20, agentSeats: 5, contact: `billing.${CANARY}@example.com`, taxId: `ABN ${CANARY}` });
    await ok('admin.deactivate', { memberId: agent.agent.id, reason: `Runaway ${CANARY}` });
    await ok('user.deactivate', { userId: dan.id, transferTo: me, reason: `Left ${CANARY}` });

    // Refused inputs carrying the canary: their answers name the field, never echo the value.
    const refusals = [
      ['member.create', { name: 'X', email: `not-an-email-${CANARY}` }],
      ['member.update', { memberId: dan.id, timezone: `Mars/${CANARY}` }],
      ['profile.update', { memberId: me, phone: `${CANARY}` }],
      ['team.create', { name: `T ${CANARY}`, [`unknown${CANARY}`]: 1 }],
    ] as const;
    const mcp = await s.mcp();
    const mcpTexts: string[] = [];
    for (const [method, params] of refusals) {
      const res = await s.client.rpc(method, params);
      expect(res.status, `${method} ${res.raw}`).toBe(400);
      const tool = (await mcp.callTool({ name: method.replace('.', '_'), arguments: params })) as { isError?: boolean; content: unknown };
      expect(tool.isError).toBe(true);
      mcpTexts.push(JSON.stringify(tool.content));
    }
    // The places looked at are real: the request log and the ledger hold these calls.
    expect(s.logs()).toContain('/api/v1/user.deactivate');
    expect(await s.ledgerText()).toContain(dan.id);
    const secrets = [new URL(invited.acceptUrl).searchParams.get('token')!, new URL(resent.acceptUrl).searchParams.get('token')!];
    expectNoCanary([CANARY, ...secrets], { ledger: await s.ledgerText(), logs: s.logs() });
    expectNoCanary(secrets, { idempotency: await s.idempotencyText() });
    expectNoCanary([`not-an-email-${CANARY}`, `Mars/${CANARY}`], Object.fromEntries(mcpTexts.map((t, i) => [`MCP answer to ${refusals[i][0]}`, t])));
  });
});
