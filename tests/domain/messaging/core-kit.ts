import { ok } from '../../helpers/calls.js';
import { castServer, type Cast, type Person } from '../../helpers/people.js';

/*
 * The messaging core test kit: a server with people of known standing (the org's admin human, two member-tier
 * humans, an agent, a read-only human), and shorthands for a channel and a message.
 */

/** The cast: the owner has every scope; the viewer messaging.read but not messaging.write. */
export type MsgOrg = Cast;

export const msgOrg = (): Promise<MsgOrg> => castServer();

let n = 0;
/** A unique channel name. */
export const uniqueName = (base = 'ch') => `${base}-${++n}-${Math.random().toString(36).slice(2, 8)}`;

/** A new channel made by `by` (default the owner) with `members`: its Channel. */
export async function newChannel(o: MsgOrg, opts: { by?: Person; members?: Person[]; private?: boolean; postingPolicy?: string } = {}): Promise<any> {
  const by = opts.by ?? o.owner;
  const r = await ok(
    o.s,
    'channel.create',
    {
      name: uniqueName(),
      private: opts.private ?? false,
      memberIds: (opts.members ?? []).map((m) => m.id),
      ...(opts.postingPolicy ? { postingPolicy: opts.postingPolicy } : {}),
    },
    by.key,
  );
  return r.channel;
}

let k = 0;
/** Send `text` to a channel as `by`: the message. */
export async function say(o: MsgOrg, by: Person, channelId: string, text: string, extra: Record<string, unknown> = {}): Promise<any> {
  return (await ok(o.s, 'messaging.send', { channelId, idempotencyId: `k-${++k}-${Date.now()}`, text, ...extra }, by.key)).message;
}

export const history = (o: MsgOrg, params: Record<string, unknown>, by: Person = o.owner) => ok(o.s, 'messaging.history', params, by.key);
