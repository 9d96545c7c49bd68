import { expect } from 'vitest';
import { head, ok, rpc } from '../../helpers/calls.js';
import { castServer, type Cast, type Person } from '../../helpers/people.js';

/*
 * The artifact test kit: the cast (owner, mia, max, agent, viewer) with a public channel all of them are in, a
 * private one the viewer is not in, a form (an amount and a note, an approve button), and shorthands for drafting,
 * posting and reading the design log.
 */

export interface ArtOrg extends Cast {
  channelId: string;
  privateId: string;
}

export async function artOrg(): Promise<ArtOrg> {
  const c = await castServer();
  const members = [c.mia, c.max, c.agent, c.viewer].map((p) => p.id);
  const channel = await ok(c.s, 'channel.create', { name: `art-${Date.now()}`, memberIds: members });
  const secret = await ok(c.s, 'channel.create', { name: `art-private-${Date.now()}`, private: true, memberIds: [c.agent.id, c.mia.id] });
  return { ...c, channelId: channel.channel.id, privateId: secret.channel.id };
}

export const FORM = [
  { id: 'root', type: 'Card', title: 'Approve the spend', tone: 'brand', children: ['amount', 'note', 'send'] },
  { id: 'amount', type: 'NumberInput', name: 'amount', label: 'Amount (AUD)', min: 1, required: true },
  { id: 'note', type: 'TextInput', name: 'note', label: 'Note' },
  { id: 'send', type: 'Button', actionId: 'approve', label: 'Approve', tone: 'positive' },
];

export const APPROVE = { actionId: 'approve', label: 'Approve', inputs: ['amount', 'note'], audience: 'humans' as const };

let n = 0;
export const idem = (base = 'k') => `${base}-${++n}-${Date.now()}`;

/** A draft by `by` (default the agent): the create result's head. */
export async function draft(o: ArtOrg, extra: Record<string, unknown> = {}, by: Person = o.agent): Promise<any> {
  const params = {
    idempotencyId: idem('create'),
    title: 'Spend approval',
    components: FORM,
    actions: [APPROVE],
    fallbackText: 'Approve in the app.',
    ...extra,
  };
  return (await ok(o.s, 'artifact.create', params, by.key)).artifact;
}

/** Post the drafts in a message to `channelId` (default the kit's channel) as `by`: the message. */
export async function post(o: ArtOrg, artifactIds: string[], by: Person = o.agent, channelId = o.channelId): Promise<any> {
  return (await ok(o.s, 'messaging.send', { channelId, idempotencyId: idem('send'), text: 'Please look', artifactIds }, by.key)).message;
}

/** A posted form by the agent. */
export async function postedForm(o: ArtOrg, extra: Record<string, unknown> = {}): Promise<any> {
  const a = await draft(o, extra);
  const message = await post(o, [a.id]);
  return { ...a, messageId: message.id };
}

export async function designRecords(o: ArtOrg): Promise<any[]> {
  const res = await o.s.client.get('ops', { source: 'design', order: 'asc', limit: 200 });
  expect(res.status, res.raw).toBe(200);
  return res.body.records;
}

/** Run fn; it must add exactly `n` design records and no ledger event. */
export async function writes<T>(o: ArtOrg, n: number, fn: () => Promise<T>): Promise<{ value: T; records: any[] }> {
  const seq = await head(o.s);
  const before = (await designRecords(o)).length;
  const value = await fn();
  expect(await head(o.s), 'no ledger event').toBe(seq);
  const records = (await designRecords(o)).slice(before);
  expect(records).toHaveLength(n);
  return { value, records };
}

export const call = (o: ArtOrg, method: string, params: unknown, by: Person = o.owner) => rpc(o.s, method, params, by.key);
