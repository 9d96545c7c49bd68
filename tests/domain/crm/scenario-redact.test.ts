import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyOrgChain } from '../../../ledger/verify.js';
import { mutate, read } from '../../helpers/calls.js';
import { account, crmOrg, deal, type CrmOrg } from './kit.js';

/*
 * Design scenario 6: a canary in an interaction's summary. crm.ask cites its ixn_ and quotes it; redactInteraction;
 * then neither ask nor GET /events nor the timeline shows it, and the chain still verifies.
 */

const CANARY = 'Quokka-Canary-9931';
let o: CrmOrg;
beforeAll(async () => {
  o = await crmOrg('2026-07-01');
});
afterAll(() => o.s.close());

describe('scenario 6: redacting a summary', () => {
  it('ask cites ixn_; redact; ask, GET /events and the timeline never show it; the chain verifies', async () => {
    const d = await deal(o, (await account(o)).id);
    const ixn = (
      await mutate(o.s, 'crm.logInteraction', { kind: 'meeting', summary: `Buyer shared ${CANARY} in the meeting.`, dealId: d.id }, 'crm.interaction.log')
    ).result.interaction;
    const before = await read(o.s, 'crm.ask', { question: `What happened on ${d.id}?` });
    expect(before.status).toBe('answered');
    expect(before.answer).toContain(CANARY);
    expect(before.claims.some((c: { cites: string[] }) => c.cites.includes(ixn.id))).toBe(true);

    await mutate(o.s, 'crm.redactInteraction', { interactionId: ixn.id, reason: 'personal_data' }, 'crm.interaction.redact');

    const after = await read(o.s, 'crm.ask', { question: `What happened on ${d.id}?` });
    expect(after.status).toBe('answered');
    expect(JSON.stringify(after)).not.toContain(CANARY);
    expect(after.claims.some((c: { text: string; cites: string[] }) => c.cites.includes(ixn.id) && c.text.includes('redacted'))).toBe(true);
    const events = await o.s.client.get('events', { cursor: 0, limit: 500 });
    expect(events.status).toBe(200);
    expect(JSON.stringify(events.body)).not.toContain(CANARY);
    const timeline = await read(o.s, 'crm.listInteractions', { dealId: d.id });
    expect(JSON.stringify(timeline)).not.toContain(CANARY);
    expect(timeline.interactions[0].summary).toBe('[redacted]');
    const search = await o.s.runtime.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM crm_interactions WHERE org_id = $1 AND summary LIKE $2`, [
      o.s.org.orgId,
      `%${CANARY}%`,
    ]);
    expect(search.map((r) => Number(r.n))).toEqual([0]);
    expect((await verifyOrgChain(o.s.runtime.db, o.s.org.orgId)).ok).toBe(true);
  });
});
