import { expect } from 'vitest';
import type { TestServer } from '../../../helpers/harness.js';
import { eventsAfter, head, ok } from '../../../helpers/calls.js';
import { castServer, person, type Cast, type Person } from '../../../helpers/people.js';
import { newTask, newWorkstream } from '../../../helpers/tasks.js';

/*
 * The annotation and pin test kit: an org with people of known standing (the admin owner, two members, an agent, a
 * read-only viewer, and a key holding only org.read/org.write), records to annotate in several families, and a
 * check that a call appended exactly one event.
 */

export interface AnnOrg extends Cast {
  /** org.read + org.write only: no files.read, board.read or messaging.read. */
  orgOnly: Person;
}

export async function annOrg(): Promise<AnnOrg> {
  const cast = await castServer();
  return { ...cast, orgOnly: await person(cast.s, 'Otto OrgOnly', { scopes: ['org.read', 'org.write'], principalKind: 'human' }) };
}

let n = 0;
/** A new task's or workstream's id. */
export const task = async (s: TestServer, key?: string): Promise<string> => (await newTask(s, {}, key)).id;
export const workstream = async (s: TestServer, key?: string): Promise<string> => (await newWorkstream(s, {}, key)).id;
export const team = async (s: TestServer): Promise<string> => (await ok(s, 'team.create', { name: `team ${++n}` })).team.id;
export const folder = async (s: TestServer, key: string, extra: Record<string, unknown> = {}): Promise<any> =>
  (await ok(s, 'files.create', { kind: 'folder', name: `folder ${++n}`, ...extra }, key)).file;
export const upload = async (s: TestServer, key: string, bytes: Buffer | string, extra: Record<string, unknown> = {}): Promise<any> =>
  (await ok(s, 'files.uploadRegister', { name: `upload ${++n}`, contentBase64: Buffer.from(bytes).toString('base64'), ...extra }, key)).file;

/** A channel (public unless isPrivate) with these members (the creator owns it). */
export const channel = async (s: TestServer, key: string, isPrivate = false, memberIds: string[] = []): Promise<string> =>
  (await ok(s, 'channel.create', { name: `chan-${++n}-${Date.now()}`, private: isPrivate, memberIds }, key)).channel.id;

/** The seq of an event appended now (a task created): an `evt_<seq>` target. */
export async function someEvent(s: TestServer): Promise<string> {
  await task(s);
  return `evt_${await head(s.client)}`;
}

/** The one event a call appended, of this kind, carrying none of `secrets`. */
export async function oneEvent(s: TestServer, before: number, kind: string, secrets: string[] = []): Promise<any> {
  const events = await eventsAfter(s.client, before);
  expect(events.map((e) => e.kind)).toEqual([kind]);
  for (const secret of secrets) expect(JSON.stringify(events[0])).not.toContain(secret);
  return events[0];
}

/** A tiny mono 8-bit WAV (sniffed as audio/wav): an upload that takes time selectors. */
export function tinyWav(): Buffer {
  const data = Buffer.alloc(800, 0x80);
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(36 + data.length, 4);
  h.write('WAVEfmt ', 8, 'latin1');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(8000, 24);
  h.writeUInt32LE(8000, 28);
  h.writeUInt16LE(1, 32);
  h.writeUInt16LE(8, 34);
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(data.length, 40);
  return Buffer.concat([h, data]);
}
