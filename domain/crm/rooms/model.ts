import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { conflict, notFound } from '../../../protocol/errors.js';
import type { GuestCapability, GuestToken, Room } from '../../../protocol/methods/crm/index.js';
import type { Queryable } from '../../../db/types.js';
import type { Deps } from '../../core/deps.js';
import { newSecret } from '../../core/ids.js';

/*
 * Rooms (room_) and guest tokens (gtk_) as rows and as the contract shows them, and the token itself: `<orgId>.wgst_…`
 * (the org scopes the lookup, as /join's and file share tokens do), of which only the SHA-256 of the secret is kept.
 */

const iso = (v: string | Date): string => new Date(v).toISOString();
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export interface RoomRow {
  room_id: string;
  deal_id: string;
  show: { offer?: boolean; nextSteps?: boolean; fileIds?: string[]; contacts?: boolean };
  allow_download: boolean;
  expires_at: string | Date;
  status: 'active' | 'revoked';
  created_at: string | Date;
}
export const ROOM_COLUMNS = 'room_id, deal_id, show, allow_download, expires_at, status, created_at';

export interface TokenRow {
  token_id: string;
  room_id: string;
  person_id: string;
  capabilities: GuestCapability[];
  expires_at: string | Date;
  status: 'active' | 'revoked';
  created_at: string | Date;
}
export const TOKEN_COLUMNS = 't.token_id, t.room_id, t.person_id, t.capabilities, t.expires_at, t.status, t.created_at';

/** A new token and the hash kept of it. */
export function newRoomToken(orgId: string): { token: string; hash: string } {
  const secret = newSecret('wgst', 40);
  return { token: `${orgId}.${secret}`, hash: sha256(secret) };
}

const TOKEN = /^(org_[0-9a-z]{1,64})\.(wgst_[0-9a-z]{40})$/;
export function parseRoomToken(token: string): { orgId: string; hash: string } | undefined {
  const m = TOKEN.exec(token);
  return m ? { orgId: m[1], hash: sha256(m[2]) } : undefined;
}

/** The room link: the token rides in the fragment, which browsers never send (so no server or proxy logs it). */
export const roomUrl = (deps: Deps, token: string) => `${deps.config.publicUrl}/room#t=${token}`;

export const roomExpired = (r: { expires_at: string | Date }, now: Date) => new Date(r.expires_at) <= now;

export async function toRooms(q: Queryable, orgId: string, rows: readonly RoomRow[], now: Date): Promise<z.output<typeof Room>[]> {
  const ids = rows.map((r) => r.room_id);
  const stats = ids.length
    ? await q.query<{ room_id: string; tokens: number; last_viewed_at: string | Date | null }>(
        `SELECT m.room_id,
                (SELECT count(*) FROM crm_guest_tokens t WHERE t.org_id = m.org_id AND t.room_id = m.room_id AND t.status = 'active' AND t.expires_at > $3)::int AS tokens,
                (SELECT max(v.viewed_at) FROM crm_share_views v WHERE v.org_id = m.org_id AND v.room_id = m.room_id) AS last_viewed_at
           FROM crm_rooms m WHERE m.org_id = $1 AND m.room_id = ANY($2::text[])`,
        [orgId, ids, now.toISOString()],
      )
    : [];
  const by = new Map(stats.map((s) => [s.room_id, s]));
  return rows.map((m) => ({
    id: m.room_id,
    dealId: m.deal_id,
    status: m.status === 'active' && roomExpired(m, now) ? 'expired' : m.status,
    show: { offer: !!m.show.offer, nextSteps: !!m.show.nextSteps, fileIds: m.show.fileIds ?? [], contacts: !!m.show.contacts },
    allowDownload: m.allow_download,
    expiresAt: iso(m.expires_at),
    tokens: Number(by.get(m.room_id)?.tokens ?? 0),
    lastViewedAt: by.get(m.room_id)?.last_viewed_at ? iso(by.get(m.room_id)!.last_viewed_at!) : null,
  }));
}

export function toGuestToken(t: TokenRow, room: RoomRow, now: Date): z.output<typeof GuestToken> {
  const expired = roomExpired(t, now) || roomExpired(room, now) || room.status !== 'active';
  return {
    id: t.token_id,
    roomId: t.room_id,
    dealId: room.deal_id,
    personId: t.person_id,
    capabilities: [...t.capabilities].sort(),
    status: t.status === 'revoked' ? 'revoked' : expired ? 'expired' : 'active',
    expiresAt: iso(t.expires_at),
    createdAt: iso(t.created_at),
  };
}

export async function loadRoom(q: Queryable, orgId: string, roomId: string, lock = false): Promise<RoomRow> {
  const [row] = await q.query<RoomRow>(`SELECT ${ROOM_COLUMNS} FROM crm_rooms WHERE org_id = $1 AND room_id = $2 ${lock ? 'FOR UPDATE' : ''}`, [orgId, roomId]);
  if (!row) throw notFound(`room ${roomId}`);
  return row;
}

export async function loadToken(q: Queryable, orgId: string, tokenId: string, lock = false): Promise<TokenRow> {
  const [row] = await q.query<TokenRow>(`SELECT ${TOKEN_COLUMNS} FROM crm_guest_tokens t WHERE t.org_id = $1 AND t.token_id = $2 ${lock ? 'FOR UPDATE' : ''}`, [
    orgId,
    tokenId,
  ]);
  if (!row) throw notFound(`guest token ${tokenId}`);
  return row;
}

/** CONFLICT unless the room can take new guests: active, not expired, its deal not deleted. */
export async function requireOpenRoom(q: Queryable, orgId: string, room: RoomRow, now: Date): Promise<void> {
  if (room.status === 'revoked') throw conflict(`room ${room.room_id} is revoked: open a new one (crm.shareDeal)`);
  if (roomExpired(room, now)) throw conflict(`room ${room.room_id} expired at ${iso(room.expires_at)}: open a new one (crm.shareDeal)`);
  const [deal] = await q.query<{ status: string }>('SELECT status FROM crm_deals WHERE org_id = $1 AND deal_id = $2', [orgId, room.deal_id]);
  if (deal?.status === 'deleted') throw conflict(`deal ${room.deal_id} is deleted: its rooms are closed`);
}
