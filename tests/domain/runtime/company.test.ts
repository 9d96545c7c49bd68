import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutate, noop, ok, refused } from '../../helpers/calls.js';
import { rtOrg, type RtOrg } from './kit.js';

/** settings.saveCompanyProfile, upsertOfficeLocation, deleteOfficeLocation and GET /org/company. */

let o: RtOrg;
beforeAll(async () => {
  o = await rtOrg();
});
afterAll(() => o.s.close());

const sydney = { line1: '1 George St', locality: 'Sydney', region: 'NSW', postcode: '2000', country: 'AU' };
const london = { line1: '10 Strand', locality: 'London', postcode: 'WC2N 5HR', country: 'GB' };
const company = async () => (await o.s.client.get('org/company', { all: 'true' })).body;

describe('settings.saveCompanyProfile', () => {
  it('patches the given fields, normalises the ABN, null clears; the same again: changed:false; events name fields, not values', async () => {
    const { result, event } = await mutate(
      o.s,
      'settings.saveCompanyProfile',
      { legalName: 'Acme Services Pty Ltd', abn: '51 824 753 556', timeZone: 'Australia/Sydney', currency: 'AUD', phone: '+61290000000' },
      'settings.profile.save',
    );
    expect(result.profile).toMatchObject({ legalName: 'Acme Services Pty Ltd', abn: '51824753556', timeZone: 'Australia/Sydney', currency: 'AUD', version: 1 });
    expect(event.payload).toEqual({ fields: ['legalName', 'abn', 'timeZone', 'currency', 'phone'], version: 1, changed: true });
    expect(JSON.stringify(event)).not.toContain('Acme');
    await noop(o.s, 'settings.saveCompanyProfile', { abn: '51824753556', currency: 'AUD' }, 'settings.profile.save');
    const cleared = await ok(o.s, 'settings.saveCompanyProfile', { phone: null, website: 'https://acme.example' });
    expect(cleared).toMatchObject({
      fields: ['phone', 'website'],
      profile: { phone: null, website: 'https://acme.example', legalName: 'Acme Services Pty Ltd', version: 2 },
    });
  });

  it('misuse names the field: bad ABN checksum, zone, currency, phone, unknown field; a member lacks admin', async () => {
    await refused(o.s, 'settings.saveCompanyProfile', { abn: '51 824 753 557' }, 'BAD_REQUEST', {
      message: 'abn: is not a valid ABN (its checksum fails): check the digits',
    });
    await refused(o.s, 'settings.saveCompanyProfile', { abn: '1234' }, 'BAD_REQUEST', { message: /^abn: must be 11 digits/ });
    await refused(o.s, 'settings.saveCompanyProfile', { timeZone: 'Mars/Olympus' }, 'BAD_REQUEST', { message: /^timeZone: must be an IANA time zone/ });
    await refused(o.s, 'settings.saveCompanyProfile', { currency: 'XYZ' }, 'BAD_REQUEST', { message: /^currency: must be an ISO 4217/ });
    await refused(o.s, 'settings.saveCompanyProfile', { phone: '0290000000' }, 'BAD_REQUEST', { message: /^phone: must be an E.164 number/ });
    await refused(o.s, 'settings.saveCompanyProfile', { motto: 'x' }, 'BAD_REQUEST', { message: /motto/ });
    await refused(o.s, 'settings.saveCompanyProfile', { legalName: 'x' }, 'FORBIDDEN_SCOPE', { key: o.mia.key, message: /^missing scope admin/ });
  });
});

describe('office locations', () => {
  it('the first office is the head office; a new head office clears the old; the head office is archived last; archived ones are restored', async () => {
    const first = await mutate(
      o.s,
      'settings.upsertOfficeLocation',
      { name: 'Sydney HQ', address: sydney, timeZone: 'Australia/Sydney' },
      'settings.location.upsert',
      {
        entityId: (r) => r.location.id,
      },
    );
    expect(first.result).toMatchObject({ location: { isHeadOffice: true, status: 'active' }, created: true, previousHeadOfficeId: null });
    expect(JSON.stringify(first.event)).not.toContain('George');
    const hq = first.result.location.id;
    const second = await ok(o.s, 'settings.upsertOfficeLocation', { name: 'London', address: london, timeZone: 'Europe/London' });
    expect(second.location.isHeadOffice).toBe(false);
    await noop(
      o.s,
      'settings.upsertOfficeLocation',
      { locationId: second.location.id, name: 'London', address: london, timeZone: 'Europe/London' },
      'settings.location.upsert',
    );
    await refused(o.s, 'settings.deleteOfficeLocation', { locationId: hq }, 'CONFLICT', {
      message: /is the head office while other offices are active: make another the head office/,
    });
    await refused(
      o.s,
      'settings.upsertOfficeLocation',
      { locationId: hq, name: 'Sydney HQ', address: sydney, timeZone: 'Australia/Sydney', isHeadOffice: false },
      'CONFLICT',
      {
        message: /is the head office: make another office the head office/,
      },
    );
    const moved = await ok(o.s, 'settings.upsertOfficeLocation', {
      locationId: second.location.id,
      name: 'London HQ',
      address: london,
      timeZone: 'Europe/London',
      isHeadOffice: true,
    });
    expect(moved).toMatchObject({ location: { isHeadOffice: true }, previousHeadOfficeId: hq });
    const archived = await mutate(o.s, 'settings.deleteOfficeLocation', { locationId: hq }, 'settings.location.delete');
    expect(archived.result.location.status).toBe('archived');
    await noop(o.s, 'settings.deleteOfficeLocation', { locationId: hq }, 'settings.location.delete');
    let view = await company();
    expect(view.headOfficeId).toBe(second.location.id);
    expect(view.offices.map((x: any) => [x.id, x.status])).toEqual([
      [second.location.id, 'active'],
      [hq, 'archived'],
    ]);
    const restored = await ok(o.s, 'settings.upsertOfficeLocation', { locationId: hq, name: 'Sydney', address: sydney, timeZone: 'Australia/Sydney' });
    expect(restored).toMatchObject({ restored: true, location: { status: 'active', isHeadOffice: false } });
    view = await company();
    expect(view.profile.legalName).toBe('Acme Services Pty Ltd');
  });

  it('misuse: unknown and other-org ids NOT_FOUND; zone and country name the field; a member lacks admin', async () => {
    await refused(o.s, 'settings.deleteOfficeLocation', { locationId: 'loc_nosuch' }, 'NOT_FOUND');
    const mine = await ok(o.s, 'settings.upsertOfficeLocation', { name: 'Perth', address: { ...sydney, locality: 'Perth' }, timeZone: 'Australia/Perth' });
    await refused(o.other, 'settings.deleteOfficeLocation', { locationId: mine.location.id }, 'NOT_FOUND');
    await refused(o.other, 'settings.upsertOfficeLocation', { locationId: mine.location.id, name: 'x', address: sydney, timeZone: 'UTC' }, 'NOT_FOUND');
    await refused(o.s, 'settings.upsertOfficeLocation', { name: 'x', address: sydney, timeZone: 'Sydney' }, 'BAD_REQUEST', {
      message: /^timeZone: must be an IANA/,
    });
    await refused(o.s, 'settings.upsertOfficeLocation', { name: 'x', address: { ...sydney, country: 'ZZ' }, timeZone: 'UTC' }, 'BAD_REQUEST', {
      message: /^address\.country: must be an ISO 3166/,
    });
    await refused(o.s, 'settings.upsertOfficeLocation', { name: 'x', address: { ...sydney, line1: '' }, timeZone: 'UTC' }, 'BAD_REQUEST', {
      message: /^address\.line1: /,
    });
    await refused(o.s, 'settings.deleteOfficeLocation', { locationId: mine.location.id }, 'FORBIDDEN_SCOPE', {
      key: o.agent.key,
      message: /^missing scope admin/,
    });
  });
});
