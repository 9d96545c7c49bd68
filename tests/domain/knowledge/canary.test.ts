import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryServer, expectNoCanary, type CanaryServer } from '../../helpers/canary.js';

/*
 * Redaction (docs/security.md, Free text stays out of the ledger) for knowledge, memory and sop: a canary in every
 * free-text field (bodies, source refs and quotes, search words, block labels, descriptions and values, amendment
 * texts and reasons, SOP titles, purposes, triggers and step texts) shows in no event and no log line; the caller
 * gets its words back.
 */

const CANARY = 'Wombat-Canary-7731';
const low = CANARY.toLowerCase();
let s: CanaryServer;
beforeAll(async () => {
  s = await canaryServer();
});
afterAll(() => s.close());

describe('knowledge, memory and sop redaction canary', () => {
  it('no body, quote, query, value, reason, title or step text in any event or log line', async () => {
    const agent = (await s.client.mint({ tier: 'agent' }, 'canary agent')).apiKey;
    const call = async (method: string, params: object, key?: string) => {
      const res = await s.client.rpc(method, params, { key });
      expect(res.body.ok, `${method}: ${res.raw.slice(0, 300)}`).toBe(true);
      return res.body.result;
    };
    const source = { kind: 'url', ref: `https://${low}.example/terms`, quote: `Quote ${CANARY}` };
    const entry = (
      await call('knowledge.append', { body: `Fact ${CANARY} about terms.`, subjectIds: [`co_${low.replace(/-/g, '')}`], sources: [source] }, agent)
    ).entry;
    const found = await call('knowledge.search', { q: `${CANARY} terms` }, agent);
    expect(JSON.stringify(found)).toContain(CANARY);
    await call('knowledge.rewrite', { entryId: entry.id, body: `Fact ${CANARY}, reworded.` }, agent);
    const next = (await call('knowledge.replace', { entryId: entry.id, body: `New fact ${CANARY}.`, sources: [source] })).entry;
    await call('knowledge.invalidate', { entryId: next.id, reason: 'wrong' });

    const block = (await call('memory.author', { label: low, description: `About ${CANARY}`, value: `Value ${CANARY}`, audience: 'org' })).block;
    const amendment = (
      await call(
        'memory.proposeAmendment',
        { blockId: block.id, op: 'replace', oldText: `Value ${CANARY}`, newText: `New ${CANARY}`, reason: `Because ${CANARY}` },
        agent,
      )
    ).amendment;
    await call('memory.mergeAmendment', { amendmentId: amendment.id, decision: 'merge' });
    expect((await call('memory.list', { format: 'prompt' }, agent)).prompt).toContain(CANARY);

    const sop = (
      await call('sop.create', { title: `SOP ${CANARY}`, purpose: `Purpose ${CANARY}`, trigger: `When ${CANARY}`, steps: [{ text: `Step ${CANARY}` }] })
    ).sop;
    await call('sop.update', { sopId: sop.id, ifVersion: 1, steps: [{ text: `Other ${CANARY}` }], status: 'active' });
    expect(JSON.stringify(await call('sop.list', { q: CANARY }))).toContain(CANARY);
    await call('sop.delete', { sopId: sop.id });

    const ledger = await s.ledgerText();
    for (const kind of [
      'knowledge.entry.append',
      'knowledge.search.run',
      'knowledge.entry.rewrite',
      'knowledge.entry.replace',
      'knowledge.entry.invalidate',
      'memory.block.author',
      'memory.amendment.propose',
      'memory.amendment.merge',
      'sop.procedure.create',
      'sop.procedure.update',
      'sop.procedure.delete',
    ]) {
      expect(ledger).toContain(kind);
    }
    expectNoCanary(CANARY, { ledger, logs: s.logs() });
    expectNoCanary(low.replace(/-/g, ''), { ledger, logs: s.logs() });
  });
});
