import { testServer, type TestServer } from '../../../helpers/harness.js';
import type { LivekitConfig } from '../../../../domain/messaging/calling/config.js';
import { ok } from '../../../helpers/calls.js';
import { OffsetClock } from '../../../helpers/clock.js';
import { ownerOf, person, type Person } from '../../../helpers/people.js';

/*
 * The calling test kit: a server (with or without LiveKit) on a clock the test can move, people of known
 * standing, a channel they share, and shorthands for calls. The clock is real time plus an offset the test moves
 * (transcripts close 24 h after a call ends).
 */

export interface CallOrg {
  s: TestServer;
  clock: OffsetClock;
  /** The org's creator: a human with every scope (approves holds). */
  owner: Person;
  mia: Person;
  max: Person;
  /** A member-tier human in no channel of the kit. */
  olga: Person;
  agent: Person;
  /** org.read and every *.read: no calling.write. */
  viewer: Person;
  /** A public channel of owner, mia, max and agent. */
  channelId: string;
}

export async function callOrg(opts: { livekit?: LivekitConfig } = {}): Promise<CallOrg> {
  const clock = new OffsetClock();
  const s = await testServer({ clock, config: { livekit: opts.livekit ?? null } });
  const owner = await ownerOf(s);
  const mia = await person(s, 'Mia Member', { tier: 'member' });
  const max = await person(s, 'Max Member', { tier: 'member' });
  const olga = await person(s, 'Olga Outsider', { tier: 'member' });
  const agent = await person(s, 'agent A', { tier: 'agent' });
  const viewer = await person(s, 'Vera Viewer', { tier: 'viewer' });
  const o = { s, clock, owner, mia, max, olga, agent, viewer, channelId: '' };
  o.channelId = await channel(o, [mia, max, agent]);
  return o;
}

let n = 0;
/** A new channel of `by` (default the owner) with `members`: its id. */
export async function channel(o: Pick<CallOrg, 's' | 'owner'>, members: Person[], opts: { private?: boolean; by?: Person } = {}): Promise<string> {
  const name = `call-${++n}-${Math.random().toString(36).slice(2, 8)}`;
  const r = await ok(o.s, 'channel.create', { name, private: opts.private ?? false, memberIds: members.map((m) => m.id) }, (opts.by ?? o.owner).key);
  return r.channel.id;
}

/** A live call in `channelId` hosted by `host`: the start result. */
export async function startCall(o: CallOrg, host: Person = o.owner, channelId = o.channelId, title?: string): Promise<any> {
  return ok(o.s, 'calling.start', { channelId, ...(title ? { title } : {}) }, host.key);
}

export const participant = (call: any, id: string) => call.participants.find((p: any) => p.principalId === id);

/** Wait until `check` passes (LiveKit's calls happen after commit). */
export async function eventually(check: () => void | Promise<void>, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}
