import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryServer, expectNoCanary, type CanaryServer } from '../../helpers/canary.js';
import { expectOk } from '../../helpers/calls.js';

/*
 * The redaction canary (docs/security.md, Free text stays out of the ledger): a canary in every free-text field
 * of every directory write and read, in names, channel values, labels, notes, tags, addresses and queries, over
 * HTTP and MCP, including refused inputs. No event and no log line shows it; refusals name fields, not values.
 */

const CANARY = 'zqdircanary7731';
const C = CANARY;
let s: CanaryServer;
beforeAll(async () => {
  s = await canaryServer();
});
afterAll(() => s.close());

const ok = async (method: string, params: Record<string, unknown>, idem?: string) => expectOk(method, await s.client.rpc(method, params, { idem }));

describe('directory: the redaction canary', () => {
  it('no name, channel value, note or query reaches an event or a log line', async () => {
    const address = { label: `Office ${C}`, lines: [`1 ${C} Street`], locality: `Town ${C}`, region: `Region ${C}`, postcode: '2000', country: 'AU' };
    const co = (
      await ok(
        'directory.createOrg',
        {
          name: `Acme ${C}`,
          legalName: `Acme ${C} Pty Ltd`,
          website: `https://${C}.example.com/${C}`,
          identifiers: { vat: `GB${C}` },
          channels: [{ kind: 'email', value: `info@${C}.example.com`, label: `Front desk ${C}` }],
          aliases: [`Old ${C}`],
          tags: [`tag${C}`],
          addresses: [address],
          notes: `Notes ${C}`,
        },
        'canary-org',
      )
    ).org;
    const p = (
      await ok(
        'directory.createPerson',
        {
          given: `Jane${C}`,
          family: `Doe${C}`,
          displayName: `Jane Doe ${C}`,
          title: `CFO ${C}`,
          worksAt: { orgId: co.id, role: `Role ${C}` },
          channels: [
            { kind: 'email', value: `jane.${C}@${C}.example.com`, label: `Work ${C}` },
            { kind: 'phone', value: '0412 345 777', label: `Mobile ${C}` },
            { kind: 'im', service: 'slack', value: `@${C}` },
          ],
          aliases: [`JD ${C}`],
          tags: [`vip${C}`],
          addresses: [address],
          notes: `Met at ${C}`,
        },
        'canary-person',
      )
    ).person;
    await ok('directory.updatePerson', { personId: p.id, given: `June${C}`, title: `CEO ${C}`, notes: `More ${C}`, aliases: [`Alias ${C}`] });
    await ok('directory.updateOrg', { orgId: co.id, name: `Acme Two ${C}`, legalName: `Legal ${C}`, identifiers: { vat: `NL${C}` }, tags: [`t2${C}`] });
    const added = (await ok('directory.addChannel', { partyId: p.id, kind: 'email', value: `second.${C}@example.org`, label: `Home ${C}` })).channel;
    await ok('directory.setPrimaryChannel', { channelId: added.id });
    await ok('directory.removeChannel', { channelId: added.id });
    await ok('directory.archivePerson', { personId: p.id });
    await ok('directory.archivePerson', { personId: p.id, archived: false });
    await ok('directory.archiveOrg', { orgId: co.id });
    await ok('directory.getPerson', { personId: p.id });
    await ok('directory.search', { q: `jane ${C}` });
    await ok('directory.search', { q: `jane.${C}@${C}.example.com` });
    await ok('directory.listPeople', { q: `${C}`, tag: `vip${C}` });
    await ok('directory.listOrgs', { q: `acme ${C}`, status: 'all' });

    // Refused inputs carrying the canary: answers name the field, never echo the value.
    const refusals = [
      ['directory.createPerson', { given: 'X', channels: [{ kind: 'email', value: `not-an-email-${C}` }] }],
      ['directory.createPerson', { given: 'X', channels: [{ kind: 'phone', value: `${C}` }] }],
      ['directory.createOrg', { name: 'X', website: `mailto:${C}@x.com` }],
      ['directory.createOrg', { name: 'X', identifiers: { abn: `abn${C}` } }],
      ['directory.addChannel', { partyId: p.id, kind: 'phone', value: `+${C}` }],
    ] as const;
    const mcp = await s.mcp();
    const answers: string[] = [];
    for (const [method, params] of refusals) {
      const res = await s.client.rpc(method, params);
      expect(res.status, `${method} ${res.raw}`).toBe(400);
      answers.push(res.raw);
      const tool = (await mcp.callTool({ name: method.replace('.', '_'), arguments: params })) as { isError?: boolean; content: unknown };
      expect(tool.isError).toBe(true);
      answers.push(JSON.stringify(tool.content));
    }
    // The places looked at are real: the request log and the ledger hold these calls.
    expect(s.logs()).toContain('/api/v1/directory.createPerson');
    const ledger = await s.ledgerText();
    expect(ledger).toContain(p.id);
    expect(ledger).toContain('directory.channel.remove');
    expectNoCanary(CANARY, { ledger, logs: s.logs() });
    expectNoCanary(CANARY, Object.fromEntries(answers.map((a, i) => [`answer ${i} to ${refusals[Math.floor(i / 2)][0]}`, a])));
  });
});
