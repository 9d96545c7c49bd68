import { describe, expect } from 'vitest';
import { it } from '../helpers/fixtures.js';

describe('gateway smoke', () => {
  it('serves health', async ({ server: s }) => {
    const res = await s.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ ok: true });
  });

  it('declares governance and appends one event', async ({ server: s }) => {
    const r = await s.client.rpc('governance.set_decision_rights', { rights: [{ area: 'board', decidedBy: 'humans' }] });
    expect(r.status).toBe(200);
    expect(r.body.result.declared).toBe(true);
    const ev = await s.client.get('events', { cursor: 0 });
    expect(ev.status).toBe(200);
    expect(ev.body.events).toHaveLength(1);
    expect(ev.body.events[0]).toMatchObject({ seq: 1, family: 'governance', kind: 'governance.decision_rights.set', prev_hash: '' });
    const snap = await s.client.get('snapshot');
    expect(snap.body).toEqual({ orgId: s.org.orgId, head: { seq: 1, rowHash: ev.body.events[0].row_hash } });
  });

  it('whoami', async ({ server: s }) => {
    const r = await s.client.get('org/whoami', { slug: s.org.slug });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ orgId: s.org.orgId, tier: 'admin', principal: { kind: 'human' } });
  });
});
