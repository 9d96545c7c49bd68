import type { z } from 'zod';
import { notFound } from '../../../protocol/errors.js';
import type { Channel, ChannelMember } from '../../../protocol/methods/messaging/shapes.js';
import type { Queryable } from '../../../db/types.js';
import { CHANNEL_COLUMNS, type ChannelRole, type ChannelRow } from './access.js';

/*
 * Channels as their callers see them: member counts, and the caller's marker with unread and mention counts read
 * from the message rows in the same statement (one per page, whatever its size). Unread: posted messages by
 * others above the marker (thread replies included: the marker is one seq per channel); mentions: those that
 * name the caller or the channel.
 */

export type ChannelShape = z.infer<typeof Channel>;
export type MemberShape = z.infer<typeof ChannelMember>;

export interface MemberRow {
  principal_id: string;
  role: ChannelRole;
  last_read_seq: string | number;
  added_by: string;
  added_at: string | Date;
  removed_at: string | Date | null;
}

const iso = (v: string | Date) => new Date(v).toISOString();

/** The unread and mention counts of a member whose marker is `marker` (SQL over messages m, $me the viewer). */
export const UNREAD_SQL = (org: string, channel: string, marker: string, me: string) =>
  `SELECT count(*)::int AS unread, (count(*) FILTER (WHERE ${me} = ANY(m.mentions) OR m.mention_channel))::int AS mentions
     FROM messages m
    WHERE m.org_id = ${org} AND m.channel_id = ${channel} AND m.seq > ${marker} AND m.status = 'posted' AND m.author_id <> ${me}`;

type ViewRow = ChannelRow & {
  member_count: number;
  role: ChannelRole | null;
  last_read_seq: string | number | null;
  unread: number | null;
  mentions: number | null;
};

/** The Channel shapes of `channelIds` as `viewerId` sees them (no access check: the caller made it), by id. */
export async function channelsView(q: Queryable, orgId: string, channelIds: readonly string[], viewerId: string): Promise<Map<string, ChannelShape>> {
  if (channelIds.length === 0) return new Map();
  const rows = await q.query<ViewRow>(
    `SELECT ${CHANNEL_COLUMNS}, me.role, me.last_read_seq, mc.member_count, u.unread, u.mentions
       FROM channels c
       LEFT JOIN channel_members me ON me.org_id = c.org_id AND me.channel_id = c.channel_id AND me.principal_id = $3 AND me.removed_at IS NULL
       CROSS JOIN LATERAL (SELECT count(*)::int AS member_count FROM channel_members cm
                            WHERE cm.org_id = c.org_id AND cm.channel_id = c.channel_id AND cm.removed_at IS NULL) mc
       LEFT JOIN LATERAL (${UNREAD_SQL('c.org_id', 'c.channel_id', 'me.last_read_seq', '$3')}) u ON me.role IS NOT NULL
      WHERE c.org_id = $1 AND c.channel_id = ANY($2::text[])`,
    [orgId, [...channelIds], viewerId],
  );
  return new Map(rows.map((r) => [r.channel_id, toChannel(r)]));
}

/** One channel as `viewerId` sees it (the caller checked access). */
export async function channelView(q: Queryable, orgId: string, channelId: string, viewerId: string): Promise<ChannelShape> {
  const view = (await channelsView(q, orgId, [channelId], viewerId)).get(channelId);
  if (!view) throw notFound(`channel ${channelId}`);
  return view;
}

function toChannel(r: ViewRow): ChannelShape {
  return {
    id: r.channel_id,
    kind: r.kind,
    name: r.name,
    title: r.title,
    topic: r.topic,
    postingPolicy: r.posting_policy,
    archived: r.archived_at !== null,
    memberCount: Number(r.member_count),
    lastSeq: Number(r.last_seq),
    createdBy: r.created_by,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
    membership:
      r.role === null
        ? null
        : { role: r.role, lastReadSeq: Number(r.last_read_seq ?? 0), unreadCount: Number(r.unread ?? 0), mentionCount: Number(r.mentions ?? 0) },
  };
}

/** A member's unread and mention counts above `marker`. */
export async function readMarks(q: Queryable, orgId: string, channelId: string, principalId: string, marker: number) {
  const [row] = await q.query<{ unread: number; mentions: number }>(UNREAD_SQL('$1', '$2', '$3', '$4'), [orgId, channelId, marker, principalId]);
  return { lastReadSeq: marker, unreadCount: Number(row?.unread ?? 0), mentionCount: Number(row?.mentions ?? 0) };
}

const MEMBER_COLUMNS = 'principal_id, role, last_read_seq, added_by, added_at, removed_at';

/** The principal's member row of the channel (live or removed), or undefined; FOR UPDATE when it will change. */
export async function memberRow(q: Queryable, orgId: string, channelId: string, principalId: string, lock = false): Promise<MemberRow | undefined> {
  const [row] = await q.query<MemberRow>(
    `SELECT ${MEMBER_COLUMNS} FROM channel_members WHERE org_id = $1 AND channel_id = $2 AND principal_id = $3 ${lock ? 'FOR UPDATE' : ''}`,
    [orgId, channelId, principalId],
  );
  return row;
}

export const toMember = (r: MemberRow): MemberShape => ({
  principalId: r.principal_id,
  role: r.role,
  lastReadSeq: Number(r.last_read_seq),
  addedBy: r.added_by,
  addedAt: iso(r.added_at),
});

/**
 * Add (or bring back) members with a role and a marker; a live member keeps its row. Returns the rows as they now
 * stand, for the ids that were added or brought back.
 */
export async function addMembers(
  q: Queryable,
  orgId: string,
  channelId: string,
  members: readonly { id: string; role: ChannelRole }[],
  by: string,
  at: string,
  marker: number,
): Promise<MemberRow[]> {
  if (members.length === 0) return [];
  return q.query<MemberRow>(
    `INSERT INTO channel_members (org_id, channel_id, principal_id, role, last_read_seq, added_by, added_at)
     SELECT $1, $2, u.id, u.role, $5, $3, $4 FROM unnest($6::text[], $7::text[]) AS u(id, role)
     ON CONFLICT (org_id, channel_id, principal_id) DO UPDATE
       SET role = EXCLUDED.role, last_read_seq = EXCLUDED.last_read_seq, added_by = EXCLUDED.added_by, added_at = EXCLUDED.added_at, removed_at = NULL
       WHERE channel_members.removed_at IS NOT NULL
     RETURNING ${MEMBER_COLUMNS}`,
    [orgId, channelId, by, at, marker, members.map((m) => m.id), members.map((m) => m.role)],
  );
}

/** The channel's live owners, locked (the last-owner guard of removeMember and updateMemberRole). */
export async function lockedOwners(q: Queryable, orgId: string, channelId: string): Promise<string[]> {
  const rows = await q.query<{ principal_id: string }>(
    `SELECT principal_id FROM channel_members WHERE org_id = $1 AND channel_id = $2 AND role = 'owner' AND removed_at IS NULL FOR UPDATE`,
    [orgId, channelId],
  );
  return rows.map((r) => r.principal_id);
}

/** Live member ids of the channel. */
export async function liveMemberIds(q: Queryable, orgId: string, channelId: string): Promise<string[]> {
  const rows = await q.query<{ principal_id: string }>(
    'SELECT principal_id FROM channel_members WHERE org_id = $1 AND channel_id = $2 AND removed_at IS NULL',
    [orgId, channelId],
  );
  return rows.map((r) => r.principal_id);
}

export type { ChannelRow };
