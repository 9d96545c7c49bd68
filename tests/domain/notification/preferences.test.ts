import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServer, type TestClient, type TestServer } from '../../helpers/harness.js';
import { eventsAfter, expectOk, head, otherOrg } from '../../helpers/calls.js';

/** notification.getPreferences / updatePreferences: defaults, the org's overlay, the member's, who may set whose. */

let s: TestServer;
let me: string;
let colleague: { apiKey: string; principal: { id: string } };
let other: TestClient;
beforeAll(async () => {
  s = await testServer();
  me = (await s.client.get('org/whoami')).body.principal.id;
  colleague = await s.client.mint({ scopes: ['org.read', 'org.write'], principalKind: 'human' }, 'colleague');
  other = await otherOrg(s);
});
afterAll(() => s.close());

const get = async (params: Record<string, unknown>, key?: string) =>
  expectOk('notification.getPreferences', await s.client.rpc('notification.getPreferences', params, { key }));
const set = async (params: Record<string, unknown>, key?: string) =>
  expectOk('notification.updatePreferences', await s.client.rpc('notification.updatePreferences', params, { key }));
const err = async (method: string, params: Record<string, unknown>, key?: string) => (await s.client.rpc(method, params, { key })).body.error;

describe('notification preferences', () => {
  it('defaults: instant for what needs you, digest for news about others, daily at 9, no quiet hours', async () => {
    const res = await get({});
    expect(res).toMatchObject({ target: me, version: 0, own: { events: {}, digest: null, quietHours: null } });
    expect(res.preferences.events).toMatchObject({ 'task.assigned': 'instant', 'member.joined': 'digest', security: 'instant' });
    expect(res.preferences.digest).toEqual({ frequency: 'daily', hour: 9 });
    expect(res.preferences.quietHours).toBeNull();
  });

  it('the org’s defaults (admin) reach everyone who did not choose; a member’s own choice wins; null inherits again', async () => {
    const before = await head(s.client);
    const org = await set({ target: 'org', events: { mention: 'digest' }, digest: { frequency: 'weekly', hour: 8, weekday: 'fri' } });
    expect(org).toMatchObject({
      target: 'org',
      changed: true,
      preferences: { events: { mention: 'digest' }, digest: { frequency: 'weekly', weekday: 'fri' } },
    });
    expect((await get({}, colleague.apiKey)).preferences.events.mention).toBe('digest');
    const mine = await set(
      { events: { mention: 'instant', 'reports.changed': 'off' }, quietHours: { start: '20:00', end: '07:00', timezone: 'Europe/Berlin' } },
      colleague.apiKey,
    );
    expect(mine.preferences).toMatchObject({
      events: { mention: 'instant', 'reports.changed': 'off' },
      digest: { frequency: 'weekly' },
      quietHours: { start: '20:00' },
    });
    const again = await set({ events: { mention: 'instant' } }, colleague.apiKey);
    expect(again.changed).toBe(false);
    const inherit = await set({ events: { mention: null }, quietHours: null }, colleague.apiKey);
    expect(inherit.preferences).toMatchObject({ events: { mention: 'digest', 'reports.changed': 'off' }, quietHours: null });
    const view = await get({}, colleague.apiKey);
    expect(view).toMatchObject({ version: 2, own: { events: { 'reports.changed': 'off' }, digest: null, quietHours: null } });
    const events = await eventsAfter(s.client, before);
    expect(events.map((e) => [e.kind, e.entity_id, e.payload.fields, e.payload.noop ?? false])).toEqual([
      ['notification.preferences.update', 'org', ['events.mention', 'digest'], false],
      ['notification.preferences.update', colleague.principal.id, ['events.mention', 'events.reports.changed', 'quietHours'], false],
      ['notification.preferences.update', colleague.principal.id, [], true],
      ['notification.preferences.update', colleague.principal.id, ['events.mention', 'quietHours'], false],
    ]);
  });

  it('security can never be off: BAD_REQUEST events.security, nothing appended', async () => {
    const seq = await head(s.client);
    expect((await err('notification.updatePreferences', { events: { security: 'off' } })).message).toMatch(/^events\.security: /);
    expect((await err('notification.updatePreferences', { target: 'org', events: { security: 'off' } })).message).toMatch(/^events\.security: /);
    expect((await err('notification.updatePreferences', { events: { sms: 'instant' } })).message).toMatch(/^events\.sms: unknown field/);
    expect((await err('notification.updatePreferences', { digest: { frequency: 'hourly', hour: 1 } })).code).toBe('BAD_REQUEST');
    expect((await err('notification.updatePreferences', { quietHours: { start: '22:00', end: '06:00', timezone: 'Mars/Base' } })).message).toMatch(
      /^quietHours\.timezone: /,
    );
    expect((await err('notification.updatePreferences', { target: 'team_x' })).message).toMatch(/^target: /);
    expect(await head(s.client)).toBe(seq);
    expect((await set({ events: { security: 'digest' } })).preferences.events.security).toBe('digest');
  });

  it('another member’s preferences and the org’s defaults need the admin scope; other orgs are NOT_FOUND', async () => {
    const denied = await err('notification.updatePreferences', { target: me, events: { mention: 'off' } }, colleague.apiKey);
    expect(denied).toMatchObject({ code: 'FORBIDDEN_SCOPE' });
    expect(denied.message).toMatch(/^missing scope admin for notification\.updatePreferences: usr_\w+ is another member's preferences/);
    expect((await err('notification.getPreferences', { target: me }, colleague.apiKey)).code).toBe('FORBIDDEN_SCOPE');
    expect((await err('notification.updatePreferences', { target: 'org', events: { mention: 'off' } }, colleague.apiKey)).code).toBe('FORBIDDEN_SCOPE');
    expect((await get({ target: 'org' }, colleague.apiKey)).target).toBe('org');
    expect((await get({ target: colleague.principal.id })).target).toBe(colleague.principal.id);
    const foreign = expectOk('member.create', await other.rpc('member.create', { name: 'Foreign' })).member;
    expect((await err('notification.getPreferences', { target: foreign.id })).code).toBe('NOT_FOUND');
    expect((await err('notification.updatePreferences', { target: foreign.id, events: { mention: 'off' } })).code).toBe('NOT_FOUND');
  });
});
