import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutate, read, refused } from '../../helpers/calls.js';
import { OffsetClock } from '../../helpers/clock.js';
import { vaultOrg, type VaultOrg } from './kit.js';
import { remoteFixture, type RemoteFixture } from './remote-fixture.js';

/*
 * An integration's limits are business time (the runtime's clock), as its tool chain records each call: the calls
 * of the last minute (callsPerMinute) and the 24 hours integration.list counts move with the clock.
 */

const clock = new OffsetClock();
let v: VaultOrg;
let remote: RemoteFixture;
let integrationId: string;
beforeAll(async () => {
  v = await vaultOrg({ callsPerMinute: 2 }, { clock });
  remote = await remoteFixture();
  const credentialId = (await v.s.client.ok('credential.put', { name: 'fixture.token', value: remote.token })).credential.id;
  const connect = { name: 'fixture', url: remote.url, auth: { kind: 'bearer', credentialId } };
  integrationId = (await mutate(v.s, 'integration.connect', connect, 'integration.connection.connect')).result.integration.id;
});
afterAll(async () => {
  await v.close();
  await remote.close();
});

const echo = (text: string) => ({ integrationId, tool: 'echo', arguments: { text } });
const counted = async () => (await read(v.s, 'integration.list', {})).integrations.find((i: any) => i.id === integrationId);

describe('integration limits by the clock', () => {
  it('two calls a minute: the third waits for the next minute of the clock; the 24-hour counts leave with the clock', async () => {
    for (const text of ['a', 'b']) expect((await read(v.s, 'integration.invokeTool', echo(text), v.agent.key)).status).toBe('ok');
    await refused(v.s, 'integration.invokeTool', echo('c'), 'RATE_LIMITED', { key: v.agent.key, message: /had 2 calls in the last minute/ });
    clock.advance(61_000);
    expect((await read(v.s, 'integration.invokeTool', echo('d'), v.agent.key)).status).toBe('ok');
    expect(await counted()).toMatchObject({ calls24h: 3, errors24h: 0 });
    clock.advance(25 * 3_600_000);
    expect(await counted()).toMatchObject({ calls24h: 0, errors24h: 0 });
  });
});
