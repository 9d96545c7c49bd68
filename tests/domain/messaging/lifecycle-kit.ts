import type { RuntimeOptions } from '../../../domain/deployed.js';
import { held as sharedHeld, ok, type Caller } from '../../helpers/calls.js';
import { OffsetClock } from '../../helpers/clock.js';
import { testServer, type CallOptions, type TestServer } from '../../helpers/harness.js';
import { ownerOf, person, type Person } from '../../helpers/people.js';

/*
 * The message lifecycle's test kit: an org with people of known standing in one public channel, a clock the tests
 * move (polls close and postAt is checked by it; real time plus an offset, as pg-boss runs jobs on the database's
 * real time), and messaging's hold.
 */

export interface Team {
  s: TestServer;
  clock: OffsetClock;
  /** The org's creator (admin key), the channel's owner. */
  owner: Person;
  /** Humans of the member tier, members of the channel. */
  alice: Person;
  bob: Person;
  /** An agent, member of the channel. */
  agent: Person;
  /** A human observer of the channel (reads and reacts only). */
  watcher: Person;
  /** A human of the member tier in no channel. */
  outsider: Person;
  /** Read scopes only. */
  viewer: Person;
  /** A public channel all of the above but outsider and viewer are in. */
  channelId: string;
}

export async function team(opts: Partial<RuntimeOptions> = {}): Promise<Team> {
  const clock = new OffsetClock();
  const s = await testServer({ clock, ...opts });
  const owner = await ownerOf(s);
  const alice = await person(s, 'Alice', { tier: 'member' });
  const bob = await person(s, 'Bob', { tier: 'member' });
  const agent = await person(s, 'Agent', { tier: 'agent' });
  const watcher = await person(s, 'Watcher', { tier: 'member' });
  const outsider = await person(s, 'Outsider', { tier: 'member' });
  const viewer = await person(s, 'Viewer', { tier: 'viewer' });
  const t = { s, clock, owner, alice, bob, agent, watcher, outsider, viewer, channelId: '' };
  t.channelId = await channel(t, 'general', [alice.id, bob.id, agent.id, watcher.id]);
  await ok(s, 'channel.updateMemberRole', { channelId: t.channelId, principalId: watcher.id, role: 'observer' });
  return t;
}

let names = 0;
/** A new channel owned by `owner` (default the org's creator) with these members: its id. */
export async function channel(
  t: Team,
  name: string,
  memberIds: string[],
  opts: { private?: boolean; key?: string; postingPolicy?: string } = {},
): Promise<string> {
  const created = await ok(
    t.s,
    'channel.create',
    { name: `${name}-${++names}`, memberIds, private: opts.private ?? false, ...(opts.postingPolicy ? { postingPolicy: opts.postingPolicy } : {}) },
    opts.key,
  );
  return created.channel.id;
}

/** The shared held, appending only messaging's hold event. */
export const held = (on: Caller, method: string, params: unknown, opts: CallOptions) =>
  sharedHeld(on, method, params, { ...opts, holdKind: 'messaging.signature.hold' });

let sends = 0;
/** A posted message by `key` in the channel: its Message. */
export async function post(t: Team, text: string, key = t.alice.key, channelId = t.channelId, extra: object = {}): Promise<any> {
  return (await ok(t.s, 'messaging.send', { channelId, idempotencyId: `k-${++sends}-${Date.now()}`, text, ...extra }, key)).message;
}

/** The message as `key` sees it, through messaging.history. */
export async function view(t: Team, messageId: string, key = t.owner.key): Promise<any> {
  const page = await ok(t.s, 'messaging.history', { messageId }, key);
  return page.messages[0];
}

/** postAt `seconds` from the clock's now. */
export const inSeconds = (t: Team, seconds: number) => new Date(t.clock.now().getTime() + seconds * 1000).toISOString();
