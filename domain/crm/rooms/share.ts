import { badRequest, conflict } from '../../../protocol/errors.js';
import { crm as c } from '../../../protocol/methods/crm/index.js';
import { one } from '../../../db/types.js';
import { handler } from '../../core/handler.js';
import { actionClassOf } from '../../approval/index.js';
import { newId } from '../../core/ids.js';
import { callerOf, canReadFile, filesForGuest } from '../../files/index.js';
import { callForGuest } from '../../messaging/index.js';
import { personFor } from '../contacts.js';
import { loadDeal, requireNotDeleted } from '../model.js';
import { crmPolicy } from '../policy.js';
import {
  loadRoom,
  loadToken,
  newRoomToken,
  requireOpenRoom,
  roomExpired,
  roomUrl,
  ROOM_COLUMNS,
  toGuestToken,
  toRooms,
  TOKEN_COLUMNS,
  type RoomRow,
  type TokenRow,
} from './model.js';

/*
 * Opening rooms, giving guests tokens, revoking both, admitting a guest to a call. Expiry is checked at use (no
 * scheduler): a room or token past its date reads as expired and answers guests the same 404 as a revoked one.
 * Events carry ids, counts and capability codes; never the guest's email or name, the token or its link.
 */

const DAY_MS = 24 * 60 * 60 * 1000;
const ROOM_DEFAULT_DAYS = 14;
const TOKEN_DEFAULT_DAYS = 7;

export const shareDeal = handler(c.shareDeal, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  // The deal locked: deleteDeal revokes its rooms under the same lock, so it cannot miss this one.
  const deal = await loadDeal(ctx.q, ctx.orgId, p.dealId, true);
  requireNotDeleted(deal);
  const policy = await crmPolicy(ctx.q, ctx.orgId);
  const days = p.expiresInDays ?? Math.min(ROOM_DEFAULT_DAYS, policy.shareMaxDays);
  if (days > policy.shareMaxDays) throw badRequest('expiresInDays', `must be at most ${policy.shareMaxDays} (the org’s crm policy shareMaxDays)`);
  const fileIds = p.show.fileIds;
  if (fileIds.length) {
    const linked = new Set(
      (
        await ctx.q.query<{ file_id: string }>('SELECT file_id FROM crm_deal_files WHERE org_id = $1 AND deal_id = $2 AND file_id = ANY($3::text[])', [
          ctx.orgId,
          deal.deal_id,
          fileIds,
        ])
      ).map((r) => r.file_id),
    );
    const active = new Set((await filesForGuest(ctx.q, ctx.orgId, fileIds)).map((f) => f.fileId));
    const caller = callerOf(ctx.principal);
    for (const [i, fileId] of fileIds.entries()) {
      if (fileIds.indexOf(fileId) !== i) throw badRequest(`show.fileIds.${i}`, `${fileId} is listed twice`);
      if (!linked.has(fileId)) throw badRequest(`show.fileIds.${i}`, `${fileId} is not linked to deal ${deal.deal_id}: link it first (crm.linkFiles)`);
      // A room shows only what its sharer may read: a trashed file, or one kept from the caller, cannot go out.
      if (!active.has(fileId) || !(await canReadFile(ctx.q, ctx.orgId, fileId, caller))) {
        throw badRequest(`show.fileIds.${i}`, `${fileId} is trashed or not readable by you: leave it out, or restore it first`);
      }
    }
  }
  const roomId = newId('room');
  const show = { offer: p.show.offer, nextSteps: p.show.nextSteps, fileIds, contacts: p.show.contacts };
  const row = one(
    await ctx.q.query<RoomRow>(
      `INSERT INTO crm_rooms (org_id, room_id, deal_id, show, allow_download, expires_at, created_by, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${ROOM_COLUMNS}`,
      [
        ctx.orgId,
        roomId,
        deal.deal_id,
        JSON.stringify(show),
        p.allowDownload,
        new Date(now.getTime() + days * DAY_MS).toISOString(),
        ctx.principal.id,
        now.toISOString(),
      ],
    ),
  );
  const [room] = await toRooms(ctx.q, ctx.orgId, [row], now);
  await ctx.emit('crm.share.create', roomId, {
    roomId,
    dealId: deal.deal_id,
    fileIds,
    offer: show.offer,
    nextSteps: show.nextSteps,
    contacts: show.contacts,
    allowDownload: p.allowDownload,
    expiresInDays: days,
  });
  return { room };
});

/** A name for a person made from an email alone: the local part, words capitalised (jane.doe -> Jane Doe). */
const nameFromEmail = (email: string) =>
  email
    .split('@')[0]
    .split(/[._+-]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join(' ') || email;

export const mintGuestToken = handler(c.mintGuestToken, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  if ((p.personId === undefined) === (p.email === undefined)) throw badRequest('personId', 'give exactly one of personId and email');
  // The room locked: a revoke (one statement on the room and its tokens) either ran before and is seen, or waits.
  const room = await loadRoom(ctx.q, ctx.orgId, p.shareId, true);
  await requireOpenRoom(ctx.q, ctx.orgId, room, now);
  const policy = await crmPolicy(ctx.q, ctx.orgId);
  const days = p.expiresInDays ?? Math.min(TOKEN_DEFAULT_DAYS, policy.tokenMaxDays);
  if (days > policy.tokenMaxDays) throw badRequest('expiresInDays', `must be at most ${policy.tokenMaxDays} (the org’s crm policy tokenMaxDays)`);
  const capabilities = [...new Set(p.capabilities)].sort();
  const download = p.capabilities.indexOf('download');
  if (download >= 0 && !room.allow_download) {
    throw badRequest(
      `capabilities.${download}`,
      `room ${room.room_id} does not allow downloads: leave download out, or open a room with allowDownload (crm.shareDeal)`,
    );
  }
  // Before anything is written (a held call commits its hold, nothing else): an agent's grant waits for a human.
  const proof =
    ctx.principal.kind === 'agent'
      ? await ctx.requireSignature({
          actionClass: actionClassOf(ctx.method.name),
          subjectId: room.room_id,
          summary: `An agent gives a person outside the org a link to deal room ${room.room_id} (deal ${room.deal_id}) for ${days} days${capabilities.length ? ` with ${capabilities.join(' and ')}` : ''}`,
          params: p,
        })
      : null;
  const person = await personFor(ctx, { ...p, name: p.name ?? (p.email === undefined ? undefined : nameFromEmail(p.email)) });
  // Never past its room.
  const expiresAt = new Date(Math.min(now.getTime() + days * DAY_MS, new Date(room.expires_at).getTime())).toISOString();
  const tokenId = newId('gtk');
  const { token, hash } = newRoomToken(ctx.orgId);
  const row = one(
    await ctx.q.query<TokenRow>(
      `INSERT INTO crm_guest_tokens AS t (org_id, token_id, room_id, person_id, capabilities, expires_at, token_hash, created_by, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${TOKEN_COLUMNS}`,
      [ctx.orgId, tokenId, room.room_id, person.partyId, capabilities, expiresAt, hash, ctx.principal.id, now.toISOString()],
    ),
  );
  await ctx.emit('crm.guest_token.mint', tokenId, {
    guestTokenId: tokenId,
    roomId: room.room_id,
    dealId: room.deal_id,
    personId: person.partyId,
    personCreated: person.created,
    capabilities,
    expiresAt,
    approvalId: proof?.approvalId ?? null,
  });
  return { guestToken: toGuestToken(row, room, now), token, url: roomUrl(ctx.deps, token) };
});

export const revokeDealShare = handler(c.revokeDealShare, async (ctx, p) => {
  if ((p.shareId === undefined) === (p.guestTokenId === undefined)) throw badRequest('shareId', 'give exactly one of shareId and guestTokenId');
  const at = ctx.deps.clock.now().toISOString();
  const roomId = p.shareId ?? (await loadToken(ctx.q, ctx.orgId, p.guestTokenId!)).room_id;
  if (p.shareId !== undefined) await loadRoom(ctx.q, ctx.orgId, p.shareId);
  // One statement: the room and every token of it (or the one token) stop at once; views stay.
  const r = one(
    await ctx.q.query<{ rooms: number; tokens: number }>(
      p.shareId !== undefined
        ? `WITH r AS (UPDATE crm_rooms SET status = 'revoked', revoked_by = $3, revoked_at = $4 WHERE org_id = $1 AND room_id = $2 AND status = 'active' RETURNING room_id),
              t AS (UPDATE crm_guest_tokens SET status = 'revoked', revoked_by = $3, revoked_at = $4 WHERE org_id = $1 AND room_id = $2 AND status = 'active' RETURNING token_id)
         SELECT (SELECT count(*) FROM r)::int AS rooms, (SELECT count(*) FROM t)::int AS tokens`
        : `WITH t AS (UPDATE crm_guest_tokens SET status = 'revoked', revoked_by = $3, revoked_at = $4 WHERE org_id = $1 AND token_id = $2 AND status = 'active' RETURNING token_id)
         SELECT 0 AS rooms, (SELECT count(*) FROM t)::int AS tokens`,
      [ctx.orgId, p.shareId ?? p.guestTokenId, ctx.principal.id, at],
    ),
  );
  const changed = r.rooms + r.tokens > 0;
  const guestTokenId = p.guestTokenId ?? null;
  await ctx.emit('crm.share.revoke', roomId, { roomId, guestTokenId, tokenCount: r.tokens, ...(changed ? {} : { noop: true }) });
  return { roomId, guestTokenId, tokenCount: r.tokens, changed };
});

export const addCallGuest = handler(c.addCallGuest, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const token = await loadToken(ctx.q, ctx.orgId, p.guestTokenId, true);
  const room = await loadRoom(ctx.q, ctx.orgId, token.room_id);
  if (token.status === 'revoked') throw conflict(`guest token ${token.token_id} is revoked: mint a new one (crm.mintGuestToken)`);
  if (roomExpired(token, now)) throw conflict(`guest token ${token.token_id} expired: mint a new one (crm.mintGuestToken)`);
  await requireOpenRoom(ctx.q, ctx.orgId, room, now);
  if (!token.capabilities.includes('join_calls')) {
    throw conflict(`guest token ${token.token_id} lacks join_calls: mint one with capabilities ["join_calls"] (crm.mintGuestToken)`);
  }
  // Through the calling family: NOT_FOUND unless the caller may read the call.
  const call = await callForGuest(ctx.q, ctx.orgId, p.callId, ctx.principal.id);
  const [already] = await ctx.q.query('SELECT 1 FROM crm_call_guests WHERE org_id = $1 AND call_id = $2 AND token_id = $3', [
    ctx.orgId,
    call.callId,
    token.token_id,
  ]);
  const hold = {
    actionClass: actionClassOf(ctx.method.name),
    subjectId: token.token_id,
    summary: `An agent admits the holder of guest token ${token.token_id} (deal room ${room.room_id}) to call ${call.callId}`,
    params: p,
  };
  const proof = ctx.principal.kind !== 'agent' ? null : already ? await ctx.verifyProof(hold) : await ctx.requireSignature(hold);
  const added = await ctx.q.query(
    `INSERT INTO crm_call_guests (org_id, call_id, token_id, added_by, added_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING call_id`,
    [ctx.orgId, call.callId, token.token_id, ctx.principal.id, now.toISOString()],
  );
  const changed = added.length > 0;
  await ctx.emit('crm.call_guest.add', call.callId, {
    callId: call.callId,
    guestTokenId: token.token_id,
    roomId: room.room_id,
    dealId: room.deal_id,
    approvalId: proof?.approvalId ?? null,
    ...(changed ? {} : { noop: true }),
  });
  return { callId: call.callId, guestTokenId: token.token_id, roomId: room.room_id, changed };
});
