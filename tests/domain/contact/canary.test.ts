import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryServer, expectNoCanary, type CanaryServer } from '../../helpers/canary.js';
import { expectOk } from '../../helpers/calls.js';

/*
 * The redaction canary for contact.* and contacts.* (docs/security.md, Free text stays out of the ledger): a canary
 * in every free-text field (names, emails, phones' labels, organisations, titles, queries), including refused inputs,
 * over HTTP and MCP. No event and no log line shows it; refusals name fields, not values.
 */

const C = 'zqcontactcanary4417';
let s: CanaryServer;
beforeAll(async () => {
  s = await canaryServer();
});
afterAll(() => s.close());

const ok = async (method: string, params: Record<string, unknown>, idem?: string) => expectOk(method, await s.client.rpc(method, params, { idem }));

describe('contact and contacts: the redaction canary', () => {
  it('no name, email, organisation, title or query reaches an event or a log line', async () => {
    const added = (
      await ok(
        'contact.add',
        { name: `Jane ${C}`, email: `jane.${C}@${C}.example.com`, phone: '0412 555 777', organisation: `Org ${C}`, title: `CFO ${C}` },
        'canary-add',
      )
    ).contact;
    await ok('contact.add', { kind: 'org', name: `Company ${C}`, email: `info@${C}.example.com` });
    await ok('contact.update', { id: added.id, name: `June ${C}`, email: `june.${C}@example.org`, organisation: `Other ${C}`, title: `CEO ${C}` });
    await ok('contact.list', { q: `june ${C}` });
    await ok('contact.list', { q: `june.${C}@example.org` });
    await ok('contacts.upsert', { email: `kai.${C}@example.net`, name: `Kai ${C}`, organisation: `Surf ${C}`, source: 'meetings' }, 'canary-upsert');
    await ok('contacts.upsert', { phone: '0412 555 778', source: 'calling' });
    await ok('contact.delete', { id: added.id });
    const sync = await s.client.get('contacts.list', { q: `kai ${C}`, updatedSince: '2000-01-01T00:00:00Z' });
    expect(sync.status).toBe(200);
    expect(JSON.stringify(sync.body)).toContain(`Kai ${C}`);

    const refusals = [
      ['contact.add', { name: 'X', email: `not-an-email-${C}` }],
      ['contact.add', { name: 'X', phone: `${C}` }],
      ['contact.update', { id: added.id, email: `bad ${C}` }],
      ['contacts.upsert', { email: `nope-${C}`, source: 'email' }],
    ] as const;
    const mcp = await s.mcp();
    const answers: string[] = [];
    for (const [method, params] of refusals) {
      const res = await s.client.rpc(method, params);
      expect(res.status, `${method} ${res.raw}`).toBeGreaterThanOrEqual(400);
      answers.push(res.raw);
      const tool = (await mcp.callTool({ name: method.replace('.', '_'), arguments: params })) as { isError?: boolean; content: unknown };
      expect(tool.isError).toBe(true);
      answers.push(JSON.stringify(tool.content));
    }
    const ledger = await s.ledgerText();
    expect(ledger).toContain('contact.party.update');
    expect(ledger).toContain('contacts.party.upsert');
    expect(s.logs()).toContain('/api/v1/contact.add');
    expectNoCanary(C, { ledger, logs: s.logs() });
    expectNoCanary(C, Object.fromEntries(answers.map((a, i) => [`answer ${i}`, a])));
  });
});
