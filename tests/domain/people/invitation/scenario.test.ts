import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import { testServer, type TestServer } from '../../../helpers/harness.js';
import { eventsAfter, expectOk, head } from '../../../helpers/calls.js';
import { startSink, type Sink } from '../../../mail/sink.js';
import { relayConfig } from '../../../mail/kit.js';

/*
 * The people group's acceptance scenario 1, end to end through a real SMTP listener: invitation.create -> the mail
 * arrives -> the link from it is accepted on /join -> the key works; whoami and /directory show Dan. The same
 * idempotency key replays the same frame with no event; a second invite is a CONFLICT; after a resend the old
 * link is dead.
 */

const CANARY = 'zq-canary-9001';
let sink: Sink;
let s: TestServer;
beforeAll(async () => {
  sink = await startSink();
  s = await testServer({ mail: relayConfig(sink.url), config: { publicUrl: 'https://ops.example.test' } });
});
afterAll(async () => {
  await s?.close(); // the mail pool first, then the listener
  await sink?.close();
});

/** The next mail to `to`, parsed (sent after commit: it may arrive a moment after the call returns). */
async function mailTo(to: string, after = 0) {
  for (let i = 0; i < 100; i++) {
    const found = sink.received.filter((m) => m.to.includes(to));
    if (found.length > after) return simpleParser(found[after].raw);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no mail to ${to}`);
}
const linkIn = (text: string | undefined) => /https:\/\/ops\.example\.test\/join\?token=\S+/.exec(text ?? '')?.[0];
const accept = async (url: string) => {
  const res = await s.app.inject({
    method: 'POST',
    url: '/join/api/accept',
    headers: { 'content-type': 'application/json', origin: 'https://ops.example.test' },
    payload: JSON.stringify({ token: new URL(url).searchParams.get('token') }),
  });
  return { status: res.statusCode, body: res.json() };
};

describe('scenario 1: invite', () => {
  it('mail -> /join -> key; whoami and /directory show Dan; replay, duplicate and resend behave', async () => {
    const to = 'dan.ortega@example.com';
    const params = { email: to, role: 'member', name: 'Dan Ortega', message: `Welcome aboard ${CANARY}` };
    const before = await head(s.client);
    const first = await s.client.rpc('invitation.create', params, { idem: 'invite-dan' });
    const created = expectOk('invitation.create', first);

    const mail = await mailTo(to);
    expect(mail.subject).toMatch(/invited you to join Test /);
    expect(mail.text).toContain(`Welcome aboard ${CANARY}`);
    const link = linkIn(mail.text);
    expect(link).toBe(created.acceptUrl);

    // Same key: the same bytes, no event, no second mail.
    const seq = await head(s.client);
    const replay = await s.client.rpc('invitation.create', params, { idem: 'invite-dan' });
    expect(replay.raw).toBe(first.raw);
    expect(await head(s.client)).toBe(seq);
    // Another key, another act: the pending invitation is named.
    const dup = (await s.client.rpc('invitation.create', params, { idem: 'invite-dan-2' })).body.error;
    expect(dup.code).toBe('CONFLICT');
    expect(dup.message).toContain(created.invitation.id);

    // Resend: a new mail with a new link; the first link is dead.
    const resent = expectOk('invitation.resend', await s.client.rpc('invitation.resend', { invitationId: created.invitation.id }));
    const second = await mailTo(to, 1);
    const newLink = linkIn(second.text)!;
    expect(newLink).toBe(resent.acceptUrl);
    expect(newLink).not.toBe(link);
    expect((await accept(link!)).status).toBe(404);

    const accepted = await accept(newLink);
    expect(accepted.status).toBe(200);
    const key = accepted.body.result.apiKey as string;
    const who = await s.client.get('org/whoami', {}, { key });
    expect(who.body).toMatchObject({ principal: { id: created.member.id, name: 'Dan Ortega', kind: 'human' }, tier: 'member' });
    const dir = await s.client.get('directory', { q: 'dan' }, { key });
    expect(dir.status).toBe(200);
    expect(dir.body.members.map((m: any) => [m.id, m.status])).toContainEqual([created.member.id, 'active']);

    const events = await eventsAfter(s.client, before);
    expect(events.map((e) => e.kind)).toEqual(['invitation.invite.create', 'invitation.invite.resend', 'invitation.invite.accept']);
    const text = JSON.stringify(events);
    for (const secret of [CANARY, to, 'Dan Ortega', key, new URL(newLink).searchParams.get('token')!]) expect(text).not.toContain(secret);
  });
});
