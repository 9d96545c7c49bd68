import { conflict, notFound } from '../../../protocol/errors.js';
import type { Queryable } from '../../../db/types.js';

/*
 * Who may see and write a channel (docs/families/messaging.md), one place for messaging, channel and calling:
 * - a private channel, group or DM the caller is not in is NOT_FOUND, as is another org's or an unknown one;
 * - a public channel is readable org-wide; writing to it without membership is CONFLICT `not a member of ch_…`;
 * - observers only read and react; an archived channel refuses writes.
 */

export type ChannelKind = 'public' | 'private' | 'dm' | 'group';
export type ChannelRole = 'owner' | 'admin' | 'member' | 'observer';

export interface ChannelRow {
  channel_id: string;
  kind: ChannelKind;
  name: string | null;
  title: string | null;
  topic: string;
  posting_policy: 'everyone' | 'admins';
  dm_key: string | null;
  last_seq: string | number;
  archived_at: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export const CHANNEL_COLUMNS = `c.channel_id, c.kind, c.name, c.title, c.topic, c.posting_policy, c.dm_key, c.last_seq, c.archived_at,
  c.created_by, c.created_at, c.updated_at`;

export interface ChannelAccess {
  channel: ChannelRow;
  /** The caller's live membership role; null for a public channel read from outside. */
  role: ChannelRole | null;
  lastReadSeq: number;
}

/** What the caller means to do: read (see it), react (observers too), write (post, edit: not observers). */
export type ChannelIntent = 'read' | 'react' | 'write';

/**
 * The channel as the caller may use it, or the error that says why not. `lock` takes the channel row FOR UPDATE
 * (a post assigns the next seq under it). An archived channel refuses every intent but read.
 */
export async function channelAccess(
  q: Queryable,
  orgId: string,
  channelId: string,
  principalId: string,
  intent: ChannelIntent,
  opts: { lock?: boolean } = {},
): Promise<ChannelAccess> {
  const [row] = await q.query<ChannelRow & { role: ChannelRole | null; last_read_seq: string | number | null }>(
    `SELECT ${CHANNEL_COLUMNS}, m.role, m.last_read_seq
       FROM channels c
       LEFT JOIN channel_members m ON m.org_id = c.org_id AND m.channel_id = c.channel_id AND m.principal_id = $3 AND m.removed_at IS NULL
      WHERE c.org_id = $1 AND c.channel_id = $2
      ${opts.lock ? 'FOR UPDATE OF c' : ''}`,
    [orgId, channelId, principalId],
  );
  if (!row || (row.kind !== 'public' && row.role === null)) throw notFound(`channel ${channelId}`);
  const { role, last_read_seq, ...channel } = row;
  if (intent !== 'read') {
    if (role === null) throw conflict(`not a member of ${channelId}: join it first (channel.addMember with your own id)`);
    if (channel.archived_at !== null) throw conflict(`${channelId} is archived: unarchive it first (channel.update archived:false, by an owner or admin)`);
    if (intent === 'write' && role === 'observer')
      throw conflict(`you are an observer of ${channelId}: observers only read and react; an owner or admin may change your role`);
  }
  return { channel, role, lastReadSeq: Number(last_read_seq ?? 0) };
}

/** Owners and admins manage a channel (rename, archive, private membership, others' messages). */
export const managesChannel = (role: ChannelRole | null): boolean => role === 'owner' || role === 'admin';

/** The channel ids a principal may read: its live memberships plus every public channel of the org (as SQL). */
export const READABLE_CHANNELS_SQL = (org: string, principal: string) =>
  `(SELECT channel_id FROM channel_members WHERE org_id = ${org} AND principal_id = ${principal} AND removed_at IS NULL
    UNION SELECT channel_id FROM channels WHERE org_id = ${org} AND kind = 'public')`;

/** SQL: `principal` may read channel row `c` (a live member, or a public channel): channelAccess's read check. */
export const CAN_READ_CHANNEL_SQL = (c: string, principal: string) =>
  `(${c}.kind = 'public' OR EXISTS (SELECT 1 FROM channel_members cm
     WHERE cm.org_id = ${c}.org_id AND cm.channel_id = ${c}.channel_id AND cm.principal_id = ${principal} AND cm.removed_at IS NULL))`;

/** SQL: the ids among `ids` (a text[] expression) of channels `principal` may read, as `id` (event visibility's batch). */
export const READABLE_CHANNEL_IDS_SQL = (org: string, principal: string, ids: string) =>
  `SELECT c.channel_id AS id FROM channels c WHERE c.org_id = ${org} AND c.channel_id = ANY(${ids}) AND ${CAN_READ_CHANNEL_SQL('c', principal)}`;

/** Whether the principal may read the channel now (NOT_FOUND in channelAccess terms: false). */
export async function canReadChannel(q: Queryable, orgId: string, channelId: string, principalId: string): Promise<boolean> {
  const [row] = await q.query<{ ok: boolean }>(`SELECT $3 IN ${READABLE_CHANNELS_SQL('$1', '$2')} AS ok`, [orgId, principalId, channelId]);
  return Boolean(row?.ok);
}
