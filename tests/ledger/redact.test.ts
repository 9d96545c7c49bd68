import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendEvent } from '../../ledger/append.js';
import { REDACTED_FAMILIES, redactPayload } from '../../ledger/redact.js';
import { verifyOrgChain } from '../../ledger/verify.js';
import { computeRowHash } from '../../protocol/hashing.js';
import { one } from '../../db/types.js';
import { freshOrg, TestClient, testServer, type TestServer } from '../helpers/harness.js';

/** Spec (Events, 5): events of messaging.*, calling.* and email.* are written already redacted. */
let s: TestServer;
beforeAll(async () => {
  s = await testServer();
});
afterAll(() => s.close());

const SECRET = 'the secret body 7f3a';
const payload = {
  channelId: 'ch_123',
  recipients: 3,
  body: SECRET,
  Text: SECRET,
  html: `<p>${SECRET}</p>`,
  subject: SECRET,
  attachments: [{ name: SECRET }],
  nested: { message: SECRET, keep: 'kept', deeper: { transcript: SECRET, count: 2 } },
  list: [{ content: SECRET, id: 'm_1' }, 'plain'],
};
const redacted = { channelId: 'ch_123', recipients: 3, nested: { keep: 'kept', deeper: { count: 2 } }, list: [{ id: 'm_1' }, 'plain'] };

describe('redaction', () => {
  it('covers exactly messaging, calling and email', () => {
    expect([...REDACTED_FAMILIES].sort()).toEqual(['calling', 'email', 'messaging']);
  });

  it.each(['messaging', 'calling', 'email'])('appendEvent with family %s drops bodies at any depth before hashing', async (family) => {
    const org = await freshOrg(s.runtime, 'red');
    const appended = await s.runtime.db.tx((q) => appendEvent(q, org.orgId, { family, kind: `${family}.sent`, entityId: 'ch_123', actor: 'agt_x', payload }));
    const client = new TestClient(s.app, org.adminKey);
    const page = await client.get('events');
    expect(page.raw).not.toContain(SECRET);
    const [e] = page.body.events;
    expect(e.payload).toEqual(redacted);
    // The hash covers the redacted payload: a client can recompute it from the wire row.
    expect(computeRowHash('', { ...e })).toBe(appended.rowHash);
    const stored = one(await s.runtime.db.query<{ payload: string }>('SELECT payload FROM events WHERE org_id = $1', [org.orgId]));
    expect(stored.payload).not.toContain(SECRET);
    expect((await verifyOrgChain(s.runtime.db, org.orgId)).ok).toBe(true);
  });

  it('other families keep their payload whole', async () => {
    const org = await freshOrg(s.runtime, 'red');
    await s.runtime.db.tx((q) =>
      appendEvent(q, org.orgId, { family: 'board', kind: 'item.created', entityId: 'task_1', actor: '', payload: { title: 't', body: 'kept' } }),
    );
    const [e] = (await new TestClient(s.app, org.adminKey).get('events')).body.events;
    expect(e.payload).toEqual({ title: 't', body: 'kept' });
  });

  it('redactPayload is a no-op outside the redacted families and leaves null alone', () => {
    expect(redactPayload('board', payload)).toBe(payload);
    expect(redactPayload('messaging', null)).toBeNull();
    expect(redactPayload('email', { recipients: 2 })).toEqual({ recipients: 2 });
  });
});
