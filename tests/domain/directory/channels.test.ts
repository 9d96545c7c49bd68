import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { one } from '../../../db/types.js';
import { onPostgres, testServer, type TestClient, type TestServer } from '../../helpers/harness.js';
import { err, eventsAfter, head, ok, otherOrg } from '../../helpers/calls.js';
import { keyWith, markMerged, newOrg, newPerson } from './kit.js';

/** directory.addChannel, removeChannel, setPrimaryChannel. */

let s: TestServer;
let other: TestClient;
let noWrite: string;
beforeAll(async () => {
  s = await testServer();
  other = await otherOrg(s);
  noWrite = await keyWith(s, ['org.read', 'directory.read']);
});
afterAll(() => s.close());

const call = (method: string, params: Record<string, unknown>) => ok(s.client, method, params);
const fail = (method: string, params: unknown, key?: string) => err(s.client, method, params, key);
const channelsOf = async (personId: string) => (await call('directory.getPerson', { personId })).person.channels as any[];

describe('directory.addChannel', () => {
  it('adds (the first of a kind is primary), a held key again is changed:false, primary:true moves the primary; one event each, no values', async () => {
    const p = await newPerson(s.client, { given: 'Chan', family: 'Nel' });
    const seq = await head(s.client);
    const first = await call('directory.addChannel', { partyId: p.id, kind: 'phone', value: '0412 345 101', label: 'mobile' });
    expect(first).toMatchObject({
      changed: true,
      channel: { kind: 'phone', key: '+61412345101', value: '0412 345 101', label: 'mobile', primary: true, source: 'manual', status: 'active' },
    });
    const second = await call('directory.addChannel', { partyId: p.id, kind: 'phone', value: '02 9876 0101' });
    expect(second.channel.primary).toBe(false);
    const again = await call('directory.addChannel', { partyId: p.id, kind: 'phone', value: '+61 412 345 101' });
    expect(again).toMatchObject({ changed: false, channel: { id: first.channel.id } });
    const promote = await call('directory.addChannel', { partyId: p.id, kind: 'phone', value: '(02) 9876 0101', primary: true });
    expect(promote).toMatchObject({ changed: true, channel: { id: second.channel.id, primary: true } });
    const third = await call('directory.addChannel', { partyId: p.id, kind: 'email', value: 'chan@nel.example', primary: true });
    expect(third.channel.primary).toBe(true);
    expect((await call('directory.getPerson', { personId: p.id })).person).toMatchObject({ phone: '02 9876 0101', email: 'chan@nel.example', version: 5 });
    const events = await eventsAfter(s.client, seq);
    expect(events.map((e) => [e.kind, e.entity_id, e.payload])).toEqual([
      ['directory.channel.add', first.channel.id, { channelId: first.channel.id, partyId: p.id, kind: 'phone', primary: true }],
      ['directory.channel.add', second.channel.id, { channelId: second.channel.id, partyId: p.id, kind: 'phone', primary: false }],
      ['directory.channel.add', first.channel.id, { channelId: first.channel.id, partyId: p.id, kind: 'phone', primary: true, noop: true }],
      ['directory.channel.add', second.channel.id, { channelId: second.channel.id, partyId: p.id, kind: 'phone', primary: true }],
      ['directory.channel.add', third.channel.id, { channelId: third.channel.id, partyId: p.id, kind: 'email', primary: true }],
    ]);
  });

  it("another active person's email is a CONFLICT naming them; organisations may share; wrong input and states refused", async () => {
    const holder = await newPerson(s.client, { given: 'Has', channels: [{ kind: 'email', value: 'taken@add.example' }] });
    const p = await newPerson(s.client, { given: 'Wants' });
    const co = await newOrg(s.client, { name: 'Add Co', channels: [{ kind: 'email', value: 'taken@add.example' }] });
    const archived = await newPerson(s.client, { given: 'Archived' });
    await call('directory.archivePerson', { personId: archived.id });
    const survivor = await newPerson(s.client, { given: 'Kept' });
    const merged = await newPerson(s.client, { given: 'Gone' });
    await markMerged(s, merged.id, survivor.id);
    const foreign = (await ok(other, 'directory.createPerson', { given: 'Theirs' })).person;
    const seq = await head(s.client);
    expect(await fail('directory.addChannel', { partyId: p.id, kind: 'email', value: 'Taken@Add.example' })).toEqual({
      code: 'CONFLICT',
      message: `value: held by ${holder.id}; add it there, or merge the two (directory.proposeMerge)`,
    });
    expect((await fail('directory.addChannel', { partyId: p.id, kind: 'phone', value: '123' })).message).toBe('value: not a valid AU phone number');
    expect((await fail('directory.addChannel', { partyId: p.id, kind: 'email', value: 'x' })).message).toBe('value: not a valid email address');
    expect((await fail('directory.addChannel', { partyId: p.id, kind: 'im', value: 'x' })).message).toMatch(/^service: required/);
    expect((await fail('directory.addChannel', { partyId: p.id, kind: 'email', value: 'a@b.co', extra: 1 })).message).toBe('extra: unknown field');
    expect((await fail('directory.addChannel', { partyId: 'lst_1', kind: 'email', value: 'a@b.co' })).message).toMatch(/^partyId: must be a party id/);
    expect((await fail('directory.addChannel', { partyId: archived.id, kind: 'email', value: 'a@b.co' })).message).toMatch(/is archived; restore it/);
    expect((await fail('directory.addChannel', { partyId: merged.id, kind: 'email', value: 'a@b.co' })).message).toBe(
      `person ${merged.id} was merged into ${survivor.id}; write to ${survivor.id} instead`,
    );
    expect((await fail('directory.addChannel', { partyId: foreign.id, kind: 'email', value: 'a@b.co' })).code).toBe('NOT_FOUND');
    expect((await fail('directory.addChannel', { partyId: p.id, kind: 'email', value: 'a@b.co' }, noWrite)).code).toBe('FORBIDDEN_SCOPE');
    expect(await head(s.client)).toBe(seq);
    // An organisation may hold an address a person holds (info@ of a group).
    expect((await call('directory.addChannel', { partyId: co.id, kind: 'email', value: 'Taken@add.example' })).changed).toBe(false);
    const group = await newOrg(s.client, { name: 'Add Group' });
    expect((await call('directory.addChannel', { partyId: group.id, kind: 'email', value: 'taken@add.example' })).changed).toBe(true);
  });

  it.skipIf(!onPostgres)(
    'racing writers of one email to two people (PostgreSQL only: skipped on PGlite, one connection): one wins, the other is a CONFLICT',
    async () => {
      const a = await newPerson(s.client, { given: 'Racer', family: 'A' });
      const b = await newPerson(s.client, { given: 'Racer', family: 'B' });
      const results = await Promise.all([a, b].map((p) => s.client.rpc('directory.addChannel', { partyId: p.id, kind: 'email', value: 'race@race.example' })));
      expect(results.map((r) => r.body.ok).sort()).toEqual([false, true]);
      expect(results.find((r) => !r.body.ok)!.body.error.code).toBe('CONFLICT');
      const created = await Promise.all(
        [1, 2, 3].map((i) => s.client.rpc('directory.createPerson', { given: `Racer ${i}`, channels: [{ kind: 'email', value: 'race2@race.example' }] })),
      );
      expect(created.filter((r) => r.body.ok)).toHaveLength(1);
      const orgs = await Promise.all(
        [1, 2].map((i) => s.client.rpc('directory.createOrg', { name: `Racing Org ${i}`, identifiers: { abn: '48 123 123 124' } })),
      );
      expect(orgs.map((r) => (r.body.ok ? 'ok' : r.body.error.code)).sort()).toEqual(['CONFLICT', 'ok']);
    },
  );
});

describe('directory.removeChannel', () => {
  it('removes (kept as history), the next oldest of its kind becomes primary; again is changed:false', async () => {
    const p = await newPerson(s.client, {
      given: 'Remo',
      channels: [
        { kind: 'email', value: 'one@remo.example' },
        { kind: 'email', value: 'two@remo.example' },
        { kind: 'email', value: 'three@remo.example' },
      ],
    });
    const [one, two] = (await channelsOf(p.id)).filter((c) => c.kind === 'email');
    const seq = await head(s.client);
    const removed = await call('directory.removeChannel', { channelId: one.id });
    expect(removed).toMatchObject({ changed: true, newPrimaryId: two.id, channel: { id: one.id, status: 'removed', primary: false } });
    expect((await call('directory.getPerson', { personId: p.id })).person.email).toBe('two@remo.example');
    const notPrimary = (await channelsOf(p.id)).find((c) => c.value === 'three@remo.example');
    expect(await call('directory.removeChannel', { channelId: notPrimary.id })).toMatchObject({ changed: true, newPrimaryId: null });
    expect(await call('directory.removeChannel', { channelId: one.id })).toMatchObject({ changed: false, newPrimaryId: null });
    const events = await eventsAfter(s.client, seq);
    expect(events.map((e) => [e.kind, e.payload.newPrimaryId, e.payload.noop ?? false])).toEqual([
      ['directory.channel.remove', two.id, false],
      ['directory.channel.remove', null, false],
      ['directory.channel.remove', null, true],
    ]);
    // A removed email frees the address for someone else.
    await newPerson(s.client, { given: 'Next', channels: [{ kind: 'email', value: 'one@remo.example' }] });
  });

  it('unknown, foreign, merged party, missing scope', async () => {
    const foreign = (await ok(other, 'directory.createPerson', { given: 'F', channels: [{ kind: 'phone', value: '0412 345 199' }] })).person;
    const survivor = await newPerson(s.client, { given: 'S' });
    const merged = await newPerson(s.client, { given: 'M', channels: [{ kind: 'phone', value: '0412 345 198' }] });
    await markMerged(s, merged.id, survivor.id);
    const [mine] = (await call('directory.getPerson', { personId: survivor.id })).person.channels;
    expect(mine).toBeUndefined();
    const mergedChannel = one(
      await s.runtime.db.query<{ channel_id: string }>('SELECT channel_id FROM directory_channels WHERE org_id = $1 AND party_id = $2', [
        s.org.orgId,
        merged.id,
      ]),
    );
    const seq = await head(s.client);
    expect(await fail('directory.removeChannel', { channelId: foreign.channels[0].id })).toEqual({
      code: 'NOT_FOUND',
      message: `channel ${foreign.channels[0].id} not found`,
    });
    expect((await fail('directory.removeChannel', { channelId: 'chn_nothing' })).code).toBe('NOT_FOUND');
    expect((await fail('directory.removeChannel', { channelId: mergedChannel.channel_id })).message).toMatch(new RegExp(`was merged into ${survivor.id}`));
    expect((await fail('directory.removeChannel', { channelId: 'per_x' })).message).toMatch(/^channelId: must be an id of the form chn_/);
    expect((await fail('directory.removeChannel', { channelId: 'chn_nothing' }, noWrite)).code).toBe('FORBIDDEN_SCOPE');
    expect(await head(s.client)).toBe(seq);
  });
});

describe('directory.setPrimaryChannel', () => {
  it('moves the primary of its kind; already primary is changed:false; removed is a CONFLICT naming the way forward', async () => {
    const p = await newPerson(s.client, {
      given: 'Prim',
      channels: [
        { kind: 'phone', value: '0412 345 201' },
        { kind: 'phone', value: '0412 345 202' },
      ],
    });
    const [a, b] = (await channelsOf(p.id)).filter((c) => c.kind === 'phone');
    const seq = await head(s.client);
    expect(await call('directory.setPrimaryChannel', { channelId: b.id })).toMatchObject({ changed: true, channel: { id: b.id, primary: true } });
    expect(await call('directory.setPrimaryChannel', { channelId: b.id })).toMatchObject({ changed: false });
    expect((await channelsOf(p.id)).map((c) => [c.id, c.primary])).toEqual([
      [b.id, true],
      [a.id, false],
    ]);
    await call('directory.removeChannel', { channelId: a.id });
    expect(await fail('directory.setPrimaryChannel', { channelId: a.id })).toEqual({
      code: 'CONFLICT',
      message: `channel ${a.id} is removed; add it again (directory.addChannel) to use it`,
    });
    expect((await fail('directory.setPrimaryChannel', { channelId: 'chn_none' })).code).toBe('NOT_FOUND');
    expect((await fail('directory.setPrimaryChannel', { channelId: b.id }, noWrite)).code).toBe('FORBIDDEN_SCOPE');
    const events = await eventsAfter(s.client, seq);
    expect(events.map((e) => [e.kind, e.payload])).toEqual([
      ['directory.channel.primary', { channelId: b.id, partyId: p.id, kind: 'phone', previousPrimaryId: a.id }],
      ['directory.channel.primary', { channelId: b.id, partyId: p.id, kind: 'phone', previousPrimaryId: null, noop: true }],
      ['directory.channel.remove', { channelId: a.id, partyId: p.id, kind: 'phone', newPrimaryId: null }],
    ]);
  });
});
