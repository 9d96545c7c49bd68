import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approved, eventsAfter, head, held, mutate, noop, ok, read, refused } from '../../helpers/calls.js';
import { verifyOrgChain } from '../../../ledger/verify.js';
import { one } from '../../../db/types.js';
import { account, crmOrg, deal, uniq, type CrmOrg } from './kit.js';
import { guest, mint, NOTE, share, showableDeal, terms } from './rooms-kit.js';

/*
 * Deal rooms and guest tokens (docs/families/crm.md, Rooms): shareDeal, mintGuestToken, revokeDealShare,
 * addCallGuest, and what a guest sees on /room/api/* (an allow-list, re-checked on every request, one 404 when dead).
 */

let o: CrmOrg;
let x: Awaited<ReturnType<typeof showableDeal>>;
beforeAll(async () => {
  o = await crmOrg();
  x = await showableDeal(o);
});
afterAll(async () => {
  expect((await verifyOrgChain(o.s.runtime.db, o.s.org.orgId)).ok).toBe(true);
  await o.s.close();
});

const dead = async (token: string) => {
  const r = await guest(o.s, '/room/api/view', token);
  expect(r.status).toBe(404);
  return r.body;
};

async function call(title = 'Kickoff', memberIds: string[] = []) {
  const channel = (await ok(o.s, 'channel.create', { name: `room-${uniq()}`, private: true, memberIds })).channel;
  return (await ok(o.s, 'calling.start', { channelId: channel.id, title })).call;
}

describe('crm.shareDeal', () => {
  it('opens a room on the deal: what it shows, downloads, expiry; one event of ids and counts; getDeal lists it', async () => {
    const { result, event } = await mutate(
      o.s,
      'crm.shareDeal',
      { dealId: x.deal.id, show: { offer: true, fileIds: [x.file.id], contacts: true }, allowDownload: true, expiresInDays: 10 },
      'crm.share.create',
      { entityId: (r) => r.room.id },
    );
    expect(result.room).toMatchObject({
      dealId: x.deal.id,
      status: 'active',
      show: { offer: true, nextSteps: false, fileIds: [x.file.id], contacts: true },
      allowDownload: true,
      expiresAt: '2026-07-11T09:00:00.000Z',
      tokens: 0,
      lastViewedAt: null,
    });
    expect(event.payload).toEqual({
      roomId: result.room.id,
      dealId: x.deal.id,
      fileIds: [x.file.id],
      offer: true,
      nextSteps: false,
      contacts: true,
      allowDownload: true,
      expiresInDays: 10,
    });
    const got = await read(o.s, 'crm.getDeal', { dealId: x.deal.id });
    expect(got.rooms.map((r: any) => r.id)).toContain(result.room.id);
  });

  it('refuses a file not linked to the deal by its index, a listed-twice file, a stay past the policy, and writes nothing', async () => {
    const stray = (await ok(o.s, 'files.uploadRegister', { name: 'stray.txt', contentBase64: Buffer.from('x').toString('base64') })).file;
    await refused(o.s, 'crm.shareDeal', { dealId: x.deal.id, show: { fileIds: [x.file.id, stray.id] } }, 'BAD_REQUEST', {
      message: new RegExp(`^show\\.fileIds\\.1: ${stray.id} is not linked to deal ${x.deal.id}: link it first \\(crm\\.linkFiles\\)`),
    });
    await refused(o.s, 'crm.shareDeal', { dealId: x.deal.id, show: { fileIds: [x.file.id, x.file.id] } }, 'BAD_REQUEST', {
      message: /^show\.fileIds\.1: .* twice/,
    });
    await refused(o.s, 'crm.shareDeal', { dealId: x.deal.id, show: {}, expiresInDays: 91 }, 'BAD_REQUEST', { message: /^expiresInDays: must be at most 90/ });
    await refused(o.s, 'crm.shareDeal', { dealId: x.deal.id, show: {}, extra: 1 }, 'BAD_REQUEST', { message: /extra/ });
    await refused(o.s, 'crm.shareDeal', { dealId: x.deal.id, show: { fileIds: ['nope'] } }, 'BAD_REQUEST', { message: /^show\.fileIds\.0/ });
  });

  it('NOT_FOUND for another org’s or an unknown deal; CONFLICT for a deleted one; FORBIDDEN_SCOPE without crm.write', async () => {
    await refused(o.other, 'crm.shareDeal', { dealId: x.deal.id, show: {} }, 'NOT_FOUND', { message: `deal ${x.deal.id} not found` });
    await refused(o.s, 'crm.shareDeal', { dealId: 'deal_nosuch', show: {} }, 'NOT_FOUND', { message: 'deal deal_nosuch not found' });
    const gone = await deal(o, (await account(o)).id);
    await ok(o.s, 'crm.deleteDeal', { dealId: gone.id });
    await refused(o.s, 'crm.shareDeal', { dealId: gone.id, show: {} }, 'CONFLICT', { message: /is deleted/ });
    await refused(o.s, 'crm.shareDeal', { dealId: x.deal.id, show: {} }, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
    await refused(o.s, 'crm.shareDeal', { dealId: x.deal.id, show: {} }, 'FORBIDDEN_SCOPE', { key: o.noCrm.key });
  });
});

describe('crm.mintGuestToken', () => {
  it('finds or makes the person by email, shows the token and link once, keeps only a hash, never past the room', async () => {
    const room = await share(o, x.deal.id, { expiresInDays: 3 });
    const email = `jane.doe.${uniq()}@buyer.example`;
    const before = await head(o.s);
    const res = await o.s.client.rpc('crm.mintGuestToken', { shareId: room.id, email, capabilities: ['join_calls'], expiresInDays: 7 });
    const r = res.body.result;
    expect(r.token).toMatch(new RegExp(`^${o.s.org.orgId}\\.wgst_[0-9a-z]{40}$`));
    expect(r.url).toBe(`${o.s.runtime.deps.config.publicUrl}/room#t=${r.token}`);
    expect(r.guestToken).toMatchObject({ roomId: room.id, dealId: x.deal.id, capabilities: ['join_calls'], status: 'active', expiresAt: room.expiresAt });
    const [event] = await eventsAfter(o.s, before);
    expect(event).toMatchObject({ kind: 'crm.guest_token.mint', entity_id: r.guestToken.id });
    expect(event.payload).toMatchObject({ guestTokenId: r.guestToken.id, roomId: room.id, personId: r.guestToken.personId, personCreated: true });
    expect(JSON.stringify(event)).not.toContain(email);
    expect(JSON.stringify(event)).not.toContain(r.token.split('.')[1]);
    const person = await ok(o.s, 'directory.getPerson', { personId: r.guestToken.personId });
    expect(JSON.stringify(person)).toContain('Jane Doe');
    const [row] = await o.s.runtime.db.query<{ token_hash: string }>('SELECT token_hash FROM crm_guest_tokens WHERE org_id = $1 AND token_id = $2', [
      o.s.org.orgId,
      r.guestToken.id,
    ]);
    expect(row!.token_hash).toMatch(/^[0-9a-f]{64}$/);
    // The same person again by id: found, not made.
    const again = await mint(o, room.id, { email: undefined, personId: r.guestToken.personId });
    expect(again.guestToken.personId).toBe(r.guestToken.personId);
  });

  it('refuses both or neither of personId and email, download on a room without downloads, too long a life; CONFLICT on a revoked room', async () => {
    const room = await share(o, x.deal.id);
    await refused(o.s, 'crm.mintGuestToken', { shareId: room.id }, 'BAD_REQUEST', { message: /^personId: give exactly one of personId and email/ });
    await refused(o.s, 'crm.mintGuestToken', { shareId: room.id, email: 'a@b.example', personId: 'per_x' }, 'BAD_REQUEST', { message: /^personId:/ });
    await refused(o.s, 'crm.mintGuestToken', { shareId: room.id, email: 'a@b.example', capabilities: ['download'] }, 'BAD_REQUEST', {
      message: /^capabilities\.0: room .* does not allow downloads/,
    });
    await refused(o.s, 'crm.mintGuestToken', { shareId: room.id, email: 'a@b.example', expiresInDays: 31 }, 'BAD_REQUEST', {
      message: /^expiresInDays: must be at most 30/,
    });
    await refused(o.s, 'crm.mintGuestToken', { shareId: room.id, email: 'not-an-email' }, 'BAD_REQUEST', { message: /^email:/ });
    await refused(o.other, 'crm.mintGuestToken', { shareId: room.id, email: 'a@b.example' }, 'NOT_FOUND', { message: `room ${room.id} not found` });
    await refused(o.s, 'crm.mintGuestToken', { shareId: room.id, email: 'a@b.example' }, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
    await ok(o.s, 'crm.revokeDealShare', { shareId: room.id });
    await refused(o.s, 'crm.mintGuestToken', { shareId: room.id, email: 'a@b.example' }, 'CONFLICT', {
      message: /is revoked: open a new one \(crm\.shareDeal\)/,
    });
  });
});

describe('the guest’s view', () => {
  it('shows names, the offered net, approved steps, shared files and contact names; never probability, amounts, notes or the other file', async () => {
    const room = await share(o, x.deal.id, { show: { offer: true, nextSteps: true, fileIds: [x.file.id], contacts: true } });
    const { token } = await mint(o, room.id, { name: 'Bea Buyer' });
    const before = await head(o.s);
    const r = await guest(o.s, '/room/api/view', token);
    expect(r.status).toBe(200);
    expect(r.headers['cache-control']).toBe('no-store');
    const view = r.json().result;
    expect(view.deal).toEqual({ name: x.deal.name, accountName: x.account.name });
    expect(view.offer).toMatchObject({ netCents: 900_000, listCents: 1_000_000, discountBps: 1000, currency: 'AUD' });
    expect(view.nextSteps).toEqual([{ kind: 'send_contract', title: 'Send the contract for signature', approvedAt: expect.any(String) }]);
    expect(view.contacts).toEqual([{ name: x.champion.name }]);
    expect(view.files).toEqual([{ id: x.file.id, name: x.file.name, kind: 'upload', sizeBytes: 18, downloadable: false }]);
    expect(view.calls).toEqual([]);
    for (const hidden of [NOTE, 'probability', 'stage', 'negotiation', '1234567', x.other.id, x.other.name, x.champion.email, 'champion']) {
      expect(r.body).not.toContain(hidden);
    }
    // Views are the room's own audit: no ledger event; getDeal shows the last view.
    expect(await eventsAfter(o.s, before)).toEqual([]);
    const { n } = one(
      await o.s.runtime.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM crm_share_views WHERE org_id = $1 AND room_id = $2 AND what = 'view'`, [
        o.s.org.orgId,
        room.id,
      ]),
    );
    expect(n).toBe(1);
    const got = await read(o.s, 'crm.getDeal', { dealId: x.deal.id });
    expect(got.rooms.find((m: any) => m.id === room.id)).toMatchObject({ tokens: 1, lastViewedAt: '2026-07-01T09:00:00.000Z' });
  });

  it('held terms never show: the offer reads as none while terms wait for a signature', async () => {
    const d = await deal(o, x.account.id);
    const heldId = await terms(o.s, d.id, { version: 1, status: 'held', listCents: 5_000_000, discountBps: 2500, netCents: 3_750_000 });
    await o.s.runtime.db.query('UPDATE crm_deals SET offer_terms_id = $3 WHERE org_id = $1 AND deal_id = $2', [o.s.org.orgId, d.id, heldId]);
    const room = await share(o, d.id);
    const { token } = await mint(o, room.id);
    const r = await guest(o.s, '/room/api/view', token);
    expect(r.json().result.offer).toBeNull();
    expect(r.body).not.toContain('3750000');
  });

  it('downloads a shared upload only with the room’s downloads and the token’s capability; other files are 404', async () => {
    const off = await share(o, x.deal.id, { show: { fileIds: [x.file.id] } });
    const viewer = await mint(o, off.id);
    expect((await guest(o.s, `/room/api/files/${x.file.id}`, viewer.token)).status).toBe(403);
    const on = await share(o, x.deal.id, { show: { fileIds: [x.file.id] }, allowDownload: true });
    const plain = await mint(o, on.id);
    expect((await guest(o.s, `/room/api/files/${x.file.id}`, plain.token)).status).toBe(403);
    const dl = await mint(o, on.id, { capabilities: ['download'] });
    expect((await guest(o.s, '/room/api/view', dl.token)).json().result.files[0].downloadable).toBe(true);
    const got = await guest(o.s, `/room/api/files/${x.file.id}`, dl.token);
    expect(got.status).toBe(200);
    expect(got.bytes.toString()).toBe('the proposal bytes');
    expect(String(got.headers['content-disposition'])).toMatch(/^attachment; filename\*=UTF-8''Proposal/);
    expect((await guest(o.s, `/room/api/files/${x.other.id}`, dl.token)).status).toBe(404);
    expect((await guest(o.s, '/room/api/files/not-an-id', dl.token)).status).toBe(404);
  });

  it('a dead token is one identical 404: unknown, malformed, missing, revoked, of a deleted deal, and expired', async () => {
    const unknown = await dead(`${o.s.org.orgId}.wgst_${'0'.repeat(40)}`);
    expect(JSON.parse(unknown).error.code).toBe('NOT_FOUND');
    expect(await dead('garbage')).toBe(unknown);
    expect((await o.s.app.inject({ method: 'GET', url: '/room/api/view' })).body).toBe(unknown);

    const room = await share(o, x.deal.id);
    const a = await mint(o, room.id);
    const b = await mint(o, room.id);
    expect((await guest(o.s, '/room/api/view', a.token)).status).toBe(200);
    await mutate(o.s, 'crm.revokeDealShare', { guestTokenId: a.guestToken.id }, 'crm.share.revoke');
    expect(await dead(a.token)).toBe(unknown);
    expect((await guest(o.s, '/room/api/view', b.token)).status).toBe(200);

    const d = await deal(o, x.account.id);
    const gone = await mint(o, (await share(o, d.id)).id);
    await ok(o.s, 'crm.deleteDeal', { dealId: d.id });
    expect(await dead(gone.token)).toBe(unknown);
  });

  it('the token is no API key: /api/v1 answers 401 to it, as Guest or Bearer', async () => {
    const { token } = await mint(o, (await share(o, x.deal.id)).id);
    for (const authorization of [`Guest ${token}`, `Bearer ${token}`]) {
      const res = await o.s.app.inject({
        method: 'POST',
        url: '/api/v1/crm.getDeal',
        headers: { authorization, 'content-type': 'application/json' },
        payload: { dealId: x.deal.id },
      });
      expect(res.statusCode).toBe(401);
    }
  });
});

describe('crm.revokeDealShare', () => {
  it('a room and all its tokens in one statement; views kept; again: a noop; exactly one of shareId and guestTokenId', async () => {
    const room = await share(o, x.deal.id);
    const a = await mint(o, room.id);
    const b = await mint(o, room.id);
    await guest(o.s, '/room/api/view', a.token);
    const { result, event } = await mutate(o.s, 'crm.revokeDealShare', { shareId: room.id }, 'crm.share.revoke', { entityId: () => room.id });
    expect(result).toEqual({ roomId: room.id, guestTokenId: null, tokenCount: 2, changed: true });
    expect(event.payload).toEqual({ roomId: room.id, guestTokenId: null, tokenCount: 2 });
    await dead(a.token);
    await dead(b.token);
    const again = await noop(o.s, 'crm.revokeDealShare', { shareId: room.id }, 'crm.share.revoke');
    expect(again.tokenCount).toBe(0);
    await noop(o.s, 'crm.revokeDealShare', { guestTokenId: a.guestToken.id }, 'crm.share.revoke');
    const { n } = one(
      await o.s.runtime.db.query<{ n: number }>('SELECT count(*)::int AS n FROM crm_share_views WHERE org_id = $1 AND room_id = $2', [o.s.org.orgId, room.id]),
    );
    expect(n).toBe(1);
    const got = await read(o.s, 'crm.getDeal', { dealId: x.deal.id });
    expect(got.rooms.find((m: any) => m.id === room.id)).toMatchObject({ status: 'revoked', tokens: 0 });
    await refused(o.s, 'crm.revokeDealShare', {}, 'BAD_REQUEST', { message: /^shareId: give exactly one/ });
    await refused(o.s, 'crm.revokeDealShare', { shareId: room.id, guestTokenId: a.guestToken.id }, 'BAD_REQUEST', { message: /^shareId:/ });
    await refused(o.other, 'crm.revokeDealShare', { shareId: room.id }, 'NOT_FOUND', { message: `room ${room.id} not found` });
    await refused(o.s, 'crm.revokeDealShare', { guestTokenId: 'gtk_nosuch' }, 'NOT_FOUND', { message: 'guest token gtk_nosuch not found' });
    await refused(o.s, 'crm.revokeDealShare', { shareId: room.id }, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
  });
});

describe('crm.addCallGuest', () => {
  it('admits a live join_calls token to one call: the room lists it to that guest only, with an .ics; again: a noop; replays', async () => {
    const room = await share(o, x.deal.id);
    const g = await mint(o, room.id, { capabilities: ['join_calls'] });
    const otherGuest = await mint(o, room.id, { capabilities: ['join_calls'] });
    const k = await call('Pricing walkthrough');
    const { result, event } = await mutate(o.s, 'crm.addCallGuest', { callId: k.id, guestTokenId: g.guestToken.id }, 'crm.call_guest.add', {
      idem: `acg-${k.id}`,
      entityId: () => k.id,
    });
    expect(result).toEqual({ callId: k.id, guestTokenId: g.guestToken.id, roomId: room.id, changed: true });
    expect(event.payload).toEqual({ callId: k.id, guestTokenId: g.guestToken.id, roomId: room.id, dealId: x.deal.id, approvalId: null });
    // I: the same key again answers the stored result and appends nothing.
    const before = await head(o.s);
    const replay = await o.s.client.rpc('crm.addCallGuest', { callId: k.id, guestTokenId: g.guestToken.id }, { idem: `acg-${k.id}` });
    expect(replay.body.result).toMatchObject({ changed: true });
    expect(await head(o.s)).toBe(before);
    await noop(o.s, 'crm.addCallGuest', { callId: k.id, guestTokenId: g.guestToken.id }, 'crm.call_guest.add');

    const view = (await guest(o.s, '/room/api/view', g.token)).json().result;
    expect(view.calls).toEqual([{ id: k.id, title: 'Pricing walkthrough', status: 'live', startedAt: '2026-07-01T09:00:00.000Z', endedAt: null }]);
    expect((await guest(o.s, '/room/api/view', otherGuest.token)).json().result.calls).toEqual([]);
    const ics = await guest(o.s, `/room/api/calls/${k.id}.ics`, g.token);
    expect(ics.status).toBe(200);
    expect(String(ics.headers['content-type'])).toMatch(/^text\/calendar/);
    const vevent = new ICAL.Component(ICAL.parse(ics.body) as unknown[]).getFirstSubcomponent('vevent')!;
    const ev = new ICAL.Event(vevent);
    expect(ev.summary).toBe('Pricing walkthrough');
    expect(ev.uid).toBe(`${k.id}@${new URL(o.s.runtime.deps.config.publicUrl).hostname}`);
    expect(ev.startDate.toJSDate().toISOString()).toBe('2026-07-01T09:00:00.000Z');
    expect(ev.endDate.toJSDate().toISOString()).toBe('2026-07-01T10:00:00.000Z');
    expect(ics.body).not.toContain(g.token);
    expect((await guest(o.s, `/room/api/calls/${k.id}.ics`, otherGuest.token)).status).toBe(404);
  });

  it('CONFLICT without join_calls or on a revoked token; NOT_FOUND for a call the caller cannot read, or another org', async () => {
    const room = await share(o, x.deal.id);
    const plain = await mint(o, room.id);
    const k = await call();
    await refused(o.s, 'crm.addCallGuest', { callId: k.id, guestTokenId: plain.guestToken.id }, 'CONFLICT', {
      message: /lacks join_calls: mint one with capabilities \["join_calls"\] \(crm\.mintGuestToken\)/,
    });
    const g = await mint(o, room.id, { capabilities: ['join_calls'] });
    // A private channel's call Mia is not in: not hers to open to a guest.
    await refused(o.s, 'crm.addCallGuest', { callId: k.id, guestTokenId: g.guestToken.id }, 'NOT_FOUND', { key: o.mia.key, message: `call ${k.id} not found` });
    await refused(o.s, 'crm.addCallGuest', { callId: 'call_nosuch', guestTokenId: g.guestToken.id }, 'NOT_FOUND');
    await refused(o.other, 'crm.addCallGuest', { callId: k.id, guestTokenId: g.guestToken.id }, 'NOT_FOUND', {
      message: `guest token ${g.guestToken.id} not found`,
    });
    await refused(o.s, 'crm.addCallGuest', { callId: k.id, guestTokenId: g.guestToken.id }, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
    await ok(o.s, 'crm.revokeDealShare', { guestTokenId: g.guestToken.id });
    await refused(o.s, 'crm.addCallGuest', { callId: k.id, guestTokenId: g.guestToken.id }, 'CONFLICT', { message: /is revoked: mint a new one/ });
  });
});

describe('expiry at use', () => {
  it('eight days on, a 7-day token answers the same 404 as an unknown one, and getDeal counts it no more', async () => {
    const room = await share(o, x.deal.id, { expiresInDays: 30 });
    const g = await mint(o, room.id);
    expect(g.guestToken.expiresAt).toBe('2026-07-08T09:00:00.000Z');
    const unknown = await dead(`${o.s.org.orgId}.wgst_${'1'.repeat(40)}`);
    o.clock.set('2026-07-09');
    try {
      expect(await dead(g.token)).toBe(unknown);
      const got = await read(o.s, 'crm.getDeal', { dealId: x.deal.id });
      expect(got.rooms.find((m: any) => m.id === room.id)).toMatchObject({ status: 'active', tokens: 0 });
      await refused(o.s, 'crm.addCallGuest', { callId: 'call_x1', guestTokenId: g.guestToken.id }, 'CONFLICT', { message: /expired: mint a new one/ });
    } finally {
      o.clock.set('2026-07-01');
    }
  });
});

describe('an agent granting outside access holds for a human (crm.mint_guest_token, crm.add_call_guest)', () => {
  it('mintGuestToken: a hold frame, nothing made; approved, the retry mints and names the approval', async () => {
    const room = await share(o, x.deal.id);
    const params = { shareId: room.id, email: `agent.guest.${uniq()}@buyer.example`, capabilities: ['join_calls'] };
    const approval = await held(o.s, 'crm.mintGuestToken', params, { key: o.agent.key, holdKind: 'crm.signature.hold' });
    expect(approval).toMatchObject({ actionClass: 'crm.mint_guest_token', completion: 'retry' });
    const approvalId = await approved(o.s, approval, o.agent.key, o.owner.key);
    const { result, event } = await mutate(o.s, 'crm.mintGuestToken', { ...params, approvalId }, 'crm.guest_token.mint', { key: o.agent.key });
    expect(result.token).toMatch(/wgst_/);
    expect(event.payload.approvalId).toBe(approvalId);

    const k = await call('Agent-run demo', [o.agent.id]);
    const admit = { callId: k.id, guestTokenId: result.guestToken.id };
    const second = await held(o.s, 'crm.addCallGuest', admit, { key: o.agent.key, holdKind: 'crm.signature.hold' });
    expect(second.actionClass).toBe('crm.add_call_guest');
    const admitted = await mutate(
      o.s,
      'crm.addCallGuest',
      { ...admit, approvalId: await approved(o.s, second, o.agent.key, o.owner.key) },
      'crm.call_guest.add',
      {
        key: o.agent.key,
      },
    );
    expect(admitted.result.changed).toBe(true);
    // Admitted already: no new grant, so no hold.
    expect((await noop(o.s, 'crm.addCallGuest', admit, 'crm.call_guest.add', o.agent.key)).changed).toBe(false);
  });
});
