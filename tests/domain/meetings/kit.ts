import { expect } from 'vitest';
import { meetingsReadContracts } from '../../../protocol/reads/meetings.js';
import type { RuntimeOptions } from '../../../domain/deployed.js';
import { mutate, ok, otherOrg, refused } from '../../helpers/calls.js';
import { testServer, type TestClient, type TestServer } from '../../helpers/harness.js';
import { ownerOf, person, type Person } from '../../helpers/people.js';
import type { ErrorCode } from '../../../protocol/errors.js';

/*
 * The meetings family's org: the owner, Ben and Mia (members), an agent, a viewer, a key without files.write, and
 * another org; calls with transcripts to record; and the shared call words bound to this org.
 */

export interface MtgOrg {
  s: TestServer;
  owner: Person;
  ben: Person;
  mia: Person;
  agent: Person;
  viewer: Person;
  /** knowledge.write but no files.write nor board.write. */
  narrow: Person;
  other: TestClient;
}

export async function mtgOrg(opts: Partial<RuntimeOptions> = {}): Promise<MtgOrg> {
  const s = await testServer(opts);
  return {
    s,
    owner: await ownerOf(s),
    ben: await person(s, 'Ben Baker', { tier: 'member' }),
    mia: await person(s, 'Mia Member', { tier: 'member' }),
    agent: await person(s, 'Agent A', { tier: 'agent' }),
    viewer: await person(s, 'Vera Viewer', { tier: 'viewer' }),
    narrow: await person(s, 'Nora Narrow', { scopes: ['org.read', 'knowledge.read', 'knowledge.write'], principalKind: 'human' }),
    other: await otherOrg(s),
  };
}

type Method = 'meetings.record' | 'meetings.recapFile';

/** A meetings call that must succeed: its result, checked against the contract (the shared `ok`). */
export const call = (o: MtgOrg, method: Method, params: unknown, key?: string): Promise<any> => ok(o.s, method, params, key);

/** A meetings call that must succeed appending exactly one event of `kind` (the shared `mutate`): the result and the event. */
export const mutateMtg = (o: MtgOrg, method: Method, params: unknown, kind: string, key?: string) => mutate(o.s, method, params, kind, { key });

/** A meetings call that must fail with `code`, appending nothing (the shared `refused`): the message. */
export const refusedMtg = (o: MtgOrg, method: Method, params: unknown, code: ErrorCode, key?: string, message?: string | RegExp): Promise<string> =>
  refused(o.s, method, params, code, { key, message });

/** GET /meetings.list as `key`: the payload, checked against its contract. */
export async function list(o: MtgOrg, query: Record<string, string | number>, key?: string): Promise<any> {
  const res = await o.s.client.get('meetings.list', query, { key });
  expect(res.status, res.raw.slice(0, 300)).toBe(200);
  const parsed = meetingsReadContracts['meetings.list'].result!.safeParse(res.body);
  expect(parsed.error?.issues ?? [], 'meetings.list matches its contract').toEqual([]);
  return res.body;
}

let n = 0;
/** A public channel of the owner with Ben and Mia, a call in it they joined, and these lines (as the owner): the callId and line ids. */
export async function callWith(
  o: MtgOrg,
  lines: { speaker?: Person; label?: string; text: string }[],
  opts: { private?: boolean; title?: string } = {},
): Promise<{ callId: string; lineIds: string[] }> {
  const channel = (
    await ok(o.s, 'channel.create', {
      name: `mtg-${++n}-${Math.random().toString(36).slice(2, 8)}`,
      private: opts.private ?? false,
      memberIds: [o.ben.id, o.mia.id],
    })
  ).channel;
  const { call: started } = await ok(o.s, 'calling.start', { channelId: channel.id, ...(opts.title ? { title: opts.title } : {}) });
  for (const p of [o.ben, o.mia]) await ok(o.s, 'calling.join', { callId: started.id }, p.key);
  const lineIds: string[] = [];
  for (const [i, l] of lines.entries()) {
    const who = l.speaker ? { speaker: l.speaker.id } : { speakerLabel: l.label ?? 'Guest' };
    lineIds.push((await ok(o.s, 'calling.addTranscriptLine', { callId: started.id, ...who, text: l.text, startMs: i * 1000, endMs: i * 1000 + 900 })).line.id);
  }
  return { callId: started.id, lineIds };
}

/** Add one line to a call, as the owner. */
export async function addLine(o: MtgOrg, callId: string, speaker: Person, text: string, startMs: number): Promise<string> {
  return (await ok(o.s, 'calling.addTranscriptLine', { callId, speaker: speaker.id, text, startMs, endMs: startMs + 900 })).line.id;
}

/**
 * A calendar event of the owner's (calendar.create, no mail): 09:00-10:00 Berlin on 2026-11-02, weekly four times
 * with `weekly`, with these members and jane@acme.example attending. Its id.
 */
export async function seedEvent(o: MtgOrg, opts: { attendees: Person[]; private?: boolean; weekly?: boolean; title?: string }): Promise<string> {
  const when = (h: string) => ({ dateTime: `2026-11-02T${h}:00:00`, timeZone: 'Europe/Berlin' });
  const { event } = await ok(o.s, 'calendar.create', {
    title: opts.title ?? 'Pricing review',
    start: when('09'),
    end: when('10'),
    ...(opts.weekly ? { recurrence: { rrule: 'FREQ=WEEKLY;COUNT=4' } } : {}),
    visibility: opts.private ? 'private' : 'default',
    attendees: [...opts.attendees.map((p) => ({ principalId: p.id })), { email: 'jane@acme.example' }],
    notify: 'none',
  });
  return event.id;
}
