import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryServer, expectNoCanary, type CanaryServer } from '../../helpers/canary.js';
import { expectOk } from '../../helpers/calls.js';

/*
 * The redaction canary for directory.exportVcard and directory.ask: names, notes, emails and the question carry
 * a canary. The export's body and the ask's answer show them to the caller (that is their point, over HTTP and
 * MCP); no event and no log line does.
 */

const C = 'zqaskvcardcanary9043';
let s: CanaryServer;
beforeAll(async () => {
  s = await canaryServer();
});
afterAll(() => s.close());

const ok = async (method: string, params: Record<string, unknown>) => expectOk(method, await s.client.rpc(method, params));

describe('directory.exportVcard and directory.ask: the redaction canary', () => {
  it('the body and the answer show the party to the caller; no event or log line shows it or the question', async () => {
    const co = (await ok('directory.createOrg', { name: `Acme${C}`, notes: `Org notes ${C}` })).org;
    const p = (
      await ok('directory.createPerson', {
        given: 'Jane',
        family: `Doe${C}`,
        title: `CFO ${C}`,
        worksAt: { orgId: co.id },
        channels: [{ kind: 'email', value: `jane.${C}@example.com`, label: `Work ${C}` }],
        notes: `Met at ${C}`,
      })
    ).person;
    await ok('directory.setAwareness', { partyId: p.id, level: 'met' });
    for (const format of ['vcard', 'jcard']) {
      const exported = await ok('directory.exportVcard', { personIds: [p.id], orgIds: [co.id], includeNotes: true, format });
      expect(exported.body).toContain(`Met at ${C}`);
    }
    const answered = await ok('directory.ask', { question: `How do I reach Jane Doe${C}?` });
    expect(answered).toMatchObject({ status: 'answered' });
    expect(answered.answer).toContain(`jane.${C}@example.com`);
    const knows = await ok('directory.ask', { question: `Who knows Jane Doe${C}?` });
    expect(knows.status).toBe('answered');
    await ok('directory.ask', { question: `merge Jane Doe${C} with ${C}` });
    // Over MCP the answer is the caller's to read; the ledger still holds none of it.
    const mcp = await s.mcp();
    const tool = (await mcp.callTool({ name: 'directory_ask', arguments: { question: `Who do we know at Acme${C}?` } })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    expect(tool.isError).toBeFalsy();
    expect(tool.content[0].text).toContain(`Jane Doe${C}`);
    const ledger = await s.ledgerText();
    expect(ledger).toContain('directory.vcard.export');
    expect(ledger).toContain('directory.ask.answer');
    expect(s.logs()).toContain('/api/v1/directory.ask');
    expectNoCanary(C, { ledger, logs: s.logs() });
  });
});
