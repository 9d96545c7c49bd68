import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryServer, expectNoCanary, type CanaryServer } from '../../helpers/canary.js';

/*
 * Redaction for the runtime's control plane: a canary in every free-text field that stays out of the ledger
 * (a heartbeat's note, a presence status text, a registration's name and instance, a cost entry's external id and
 * model, the company's names, an office's name and address) shows in no event and no log line; the reads give it back.
 */

const CANARY = 'Quokka-Canary-5521';
let s: CanaryServer;
beforeAll(async () => {
  s = await canaryServer();
});
afterAll(() => s.close());

describe('runtime redaction canary', () => {
  it('no note, status text, name, address or external id in any event or log line', async () => {
    const agent = (await s.client.mint({ tier: 'agent' }, 'canary agent')).apiKey;
    const call = async (method: string, params: object, key?: string) => {
      const res = await s.client.rpc(method, params, { key });
      expect(res.body.ok, `${method}: ${res.raw.slice(0, 300)}`).toBe(true);
      return res.body.result;
    };
    const reg = (await call('registry.register', { instance: `host-${CANARY}`, name: `agent ${CANARY}`, version: '1' }, agent)).registration;
    await s.runtime.db.query(`UPDATE agent_registrations SET last_beat_at = last_beat_at - interval '1 minute' WHERE registration_id = $1`, [reg.id]);
    await call('registry.heartbeat', { registrationId: reg.id, status: 'warning', note: `note ${CANARY}` }, agent);
    await call('presence.beat', { status: 'busy', statusText: `text ${CANARY}` }, agent);
    await call('lease.claim', { name: 'canary-job', ttlSeconds: 60, holderInstance: `inst-${CANARY}` }, agent);
    const entry = { provider: 'openai', model: `model-${CANARY}`, occurredAt: new Date().toISOString(), externalId: `ext-${CANARY}` };
    await call('cost.report', { entries: [entry] }, agent);
    await call('settings.saveCompanyProfile', { legalName: `Legal ${CANARY}`, tradingName: `Trading ${CANARY}` });
    await call('settings.upsertOfficeLocation', {
      name: `Office ${CANARY}`,
      address: { line1: `1 ${CANARY} St`, line2: CANARY, locality: CANARY, region: CANARY, postcode: '2000', country: 'AU' },
      timeZone: 'Australia/Sydney',
    });
    const agents = await s.client.get('org/agents');
    expect(JSON.stringify(agents.body)).toContain(`note ${CANARY}`);
    expect(JSON.stringify((await s.client.get('org/company')).body)).toContain(`Office ${CANARY}`);

    const ledger = await s.ledgerText();
    for (const kind of [
      'registry.agent.register',
      'registry.agent.heartbeat',
      'presence.status.beat',
      'lease.lock.claim',
      'cost.usage.report',
      'settings.profile.save',
      'settings.location.upsert',
    ]) {
      expect(ledger).toContain(kind);
    }
    expectNoCanary(CANARY, { ledger, logs: s.logs() });
  });
});
