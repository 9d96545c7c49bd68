import type { EventVisibility, FamilyReader } from '../stream/visibility.js';

/*
 * Who sees an email event on GET /events and the stream: a member of every mailbox it names (`mailboxId`, or
 * `mailboxIds` for an act over several), and its actor. Everyone else (an admin's key aside: it sees the whole
 * chain) does not learn that mail moved in a mailbox they are not in. One statement per batch: the reader's
 * mailboxes, kept by a stream until a membership change comes by.
 */

type Payload = Record<string, unknown>;

const parse = (raw: unknown): Payload => {
  const v: unknown = typeof raw === 'string' ? JSON.parse(raw) : raw;
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Payload) : {};
};

const named = (p: Payload): string[] => {
  const list = Array.isArray(p.mailboxIds) ? p.mailboxIds : [p.mailboxId];
  return list.filter((id): id is string => typeof id === 'string' && id !== '');
};

export const emailEvents: EventVisibility = (ctx): FamilyReader => {
  const me = ctx.principal.id;
  let mine: Promise<Set<string>> | undefined;
  const load = async () =>
    new Set(
      (await ctx.q.query<{ mailbox_id: string }>('SELECT mailbox_id FROM email_mailbox_members WHERE org_id = $1 AND principal_id = $2', [ctx.orgId, me])).map(
        (r) => r.mailbox_id,
      ),
    );
  return {
    saw(batch) {
      if (batch.some((e) => e.kind === 'email.mailbox.set_members' || e.kind === 'email.mailbox.create')) mine = undefined;
    },
    async visible(events) {
      const boxes = await (mine ??= load());
      const shown = new Set<number>();
      for (const e of events) {
        const ids = named(parse(e.payload));
        if (e.actor === me || (ids.length > 0 && ids.every((id) => boxes.has(id)))) shown.add(Number(e.seq));
      }
      if (!ctx.cache) mine = undefined;
      return shown;
    },
  };
};
