import { ApiError } from '../../../protocol/errors.js';
import type { Queryable } from '../../../db/types.js';
import type { BlobMeta } from '../../../blobs/index.js';
import type { Deps } from '../../core/deps.js';
import { newId } from '../../core/ids.js';
import { partyCards } from '../../directory/index.js';
import { filesForGuest } from '../../files/index.js';
import { guestCalls } from '../../messaging/index.js';
import { addressBucket, count, hmac } from '../../people/index.js';
import type { GuestCapability } from '../../../protocol/methods/crm/index.js';
import { callIcs } from './ics.js';
import { parseRoomToken, type RoomRow } from './model.js';

/*
 * What a guest holding a room token sees (GET /room and /room/api/*, gateway/deal-room.ts). Every request re-checks
 * the token, its room, the deal and the capability, in one query, at the injected clock: revoked, expired, unknown,
 * of a deleted deal or malformed all answer one and the same 404. The view is an allow-list: the deal's and account's
 * names, offered terms (never held ones), approved next steps, shared files still linked and active, contact names,
 * and the calls this guest was admitted to; never probability, stage, amounts beyond the offer, notes or
 * escalations. Each request is recorded in crm_share_views (the room's own audit; no ledger event).
 */

export const ROOM_GUEST_PER_ADDRESS_PER_MINUTE = 120;

const deadLink = () => new ApiError('NOT_FOUND', 'this room link is not valid: it may have expired or been revoked; ask whoever shared it for a new one');

async function limitGuest(deps: Deps, source: string | undefined): Promise<void> {
  if (!source) return;
  await count(deps.db, [
    {
      bucket: `room:${hmac(deps.signingKey, 'room-address', addressBucket(source))}`,
      windowMs: 60_000,
      max: ROOM_GUEST_PER_ADDRESS_PER_MINUTE,
      refusal: `at most ${ROOM_GUEST_PER_ADDRESS_PER_MINUTE} deal-room requests a minute from one address`,
    },
  ]);
}

interface Guest {
  orgId: string;
  tokenId: string;
  personId: string;
  capabilities: GuestCapability[];
  tokenExpiresAt: string;
  room: RoomRow;
  dealName: string;
  accountPartyId: string;
  offerTermsId: string | null;
}

/** The live token behind `token`, with its room and deal: all checked now, or the one 404. */
async function admit(q: Queryable, token: unknown, now: Date): Promise<Guest> {
  const parsed = typeof token === 'string' ? parseRoomToken(token) : undefined;
  if (!parsed) throw deadLink();
  const [r] = await q.query<{
    token_id: string;
    person_id: string;
    capabilities: GuestCapability[];
    token_expires_at: string | Date;
    room_id: string;
    deal_id: string;
    show: RoomRow['show'];
    allow_download: boolean;
    expires_at: string | Date;
    status: 'active';
    created_at: string | Date;
    deal_name: string;
    party_id: string;
    offer_terms_id: string | null;
  }>(
    `SELECT t.token_id, t.person_id, t.capabilities, t.expires_at AS token_expires_at, m.room_id, m.deal_id, m.show, m.allow_download, m.expires_at,
            m.status, m.created_at, d.name AS deal_name, a.party_id, d.offer_terms_id
       FROM crm_guest_tokens t
       JOIN crm_rooms m ON m.org_id = t.org_id AND m.room_id = t.room_id
       JOIN crm_deals d ON d.org_id = m.org_id AND d.deal_id = m.deal_id
       JOIN crm_accounts a ON a.org_id = d.org_id AND a.account_id = d.account_id
      WHERE t.org_id = $1 AND t.token_hash = $2 AND t.status = 'active' AND t.expires_at > $3
        AND m.status = 'active' AND m.expires_at > $3 AND d.status <> 'deleted'`,
    [parsed.orgId, parsed.hash, now.toISOString()],
  );
  if (!r) throw deadLink();
  return {
    orgId: parsed.orgId,
    tokenId: r.token_id,
    personId: r.person_id,
    capabilities: r.capabilities,
    tokenExpiresAt: new Date(r.token_expires_at).toISOString(),
    room: {
      room_id: r.room_id,
      deal_id: r.deal_id,
      show: r.show,
      allow_download: r.allow_download,
      expires_at: r.expires_at,
      status: r.status,
      created_at: r.created_at,
    },
    dealName: r.deal_name,
    accountPartyId: r.party_id,
    offerTermsId: r.offer_terms_id,
  };
}

async function recordView(q: Queryable, g: Guest, what: 'view' | 'file' | 'ics', fileId: string | null, now: Date): Promise<void> {
  await q.query(`INSERT INTO crm_share_views (org_id, view_id, room_id, token_id, what, file_id, viewed_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
    g.orgId,
    newId('rvw'),
    g.room.room_id,
    g.tokenId,
    what,
    fileId,
    now.toISOString(),
  ]);
}

/** Shared files still linked to the deal and active, in the order shared. */
async function sharedFiles(q: Queryable, g: Guest) {
  const ids = g.room.show.fileIds ?? [];
  if (!ids.length) return [];
  const linked = new Set(
    (
      await q.query<{ file_id: string }>('SELECT file_id FROM crm_deal_files WHERE org_id = $1 AND deal_id = $2 AND file_id = ANY($3::text[])', [
        g.orgId,
        g.room.deal_id,
        ids,
      ])
    ).map((r) => r.file_id),
  );
  const canDownload = g.room.allow_download && g.capabilities.includes('download');
  return (
    await filesForGuest(
      q,
      g.orgId,
      ids.filter((id) => linked.has(id)),
    )
  ).map((f) => ({
    ...f,
    downloadable: canDownload && f.kind === 'upload' && f.sha256 !== null,
  }));
}

async function admittedCallIds(q: Queryable, g: Guest): Promise<string[]> {
  if (!g.capabilities.includes('join_calls')) return [];
  const rows = await q.query<{ call_id: string }>('SELECT call_id FROM crm_call_guests WHERE org_id = $1 AND token_id = $2', [g.orgId, g.tokenId]);
  return rows.map((r) => r.call_id);
}

export interface RoomView {
  guest: { name: string; capabilities: GuestCapability[]; expiresAt: string };
  room: { expiresAt: string; allowDownload: boolean };
  deal: { name: string; accountName: string };
  offer: {
    listCents: number;
    discountBps: number;
    netCents: number;
    currency: string;
    paymentDays: number;
    termMonths: number;
    clauses: { code: string; text: string | null }[];
  } | null;
  nextSteps: { kind: string; title: string | null; approvedAt: string | null }[];
  contacts: { name: string }[];
  files: { id: string; name: string; kind: string; sizeBytes: number; downloadable: boolean }[];
  calls: { id: string; title: string | null; status: string; startedAt: string; endedAt: string | null }[];
}

/** The room as this guest may see it; the view recorded. */
export async function roomView(deps: Deps, token: unknown, source: string | undefined): Promise<RoomView> {
  await limitGuest(deps, source);
  return deps.db.tx(async (q) => {
    const now = deps.clock.now();
    const g = await admit(q, token, now);
    const show = g.room.show;
    // Offered or accepted terms only: held or returned terms wait for a human and never reach a buyer.
    const [offer] =
      show.offer && g.offerTermsId
        ? await q.query<Record<string, any>>(
            `SELECT list_cents, discount_bps, net_cents, currency, payment_days, term_months, clauses FROM crm_terms
              WHERE org_id = $1 AND terms_id = $2 AND deal_id = $3 AND status IN ('offered', 'accepted')`,
            [g.orgId, g.offerTermsId, g.room.deal_id],
          )
        : [];
    const steps = show.nextSteps
      ? await q.query<{ step_kind: string; step_title: string | null; resolved_at: string | Date | null }>(
          `SELECT step_kind, step_title, resolved_at FROM crm_escalations WHERE org_id = $1 AND deal_id = $2 AND kind = 'next_step' AND status = 'signed'
            ORDER BY resolved_at, escalation_id`,
          [g.orgId, g.room.deal_id],
        )
      : [];
    const contactIds = show.contacts
      ? (
          await q.query<{ person_id: string }>(
            `SELECT DISTINCT c.person_id FROM crm_deal_contacts l JOIN crm_contacts c ON c.org_id = l.org_id AND c.contact_id = l.contact_id
              WHERE l.org_id = $1 AND l.deal_id = $2 AND c.status = 'active' ORDER BY c.person_id`,
            [g.orgId, g.room.deal_id],
          )
        ).map((r) => r.person_id)
      : [];
    const cards = await partyCards(q, g.orgId, [g.personId, g.accountPartyId, ...contactIds]);
    const files = await sharedFiles(q, g);
    const calls = await guestCalls(q, g.orgId, await admittedCallIds(q, g));
    await recordView(q, g, 'view', null, now);
    return {
      guest: { name: cards.get(g.personId)?.name ?? '', capabilities: [...g.capabilities].sort(), expiresAt: g.tokenExpiresAt },
      room: { expiresAt: new Date(g.room.expires_at).toISOString(), allowDownload: g.room.allow_download },
      deal: { name: g.dealName, accountName: cards.get(g.accountPartyId)?.name ?? '' },
      offer: offer
        ? {
            listCents: Number(offer.list_cents),
            discountBps: Number(offer.discount_bps),
            netCents: Number(offer.net_cents),
            currency: offer.currency,
            paymentDays: Number(offer.payment_days),
            termMonths: Number(offer.term_months),
            clauses: (offer.clauses as { code: string; text?: string | null }[]).map((x) => ({ code: x.code, text: x.text ?? null })),
          }
        : null,
      nextSteps: steps.map((s) => ({ kind: s.step_kind, title: s.step_title, approvedAt: s.resolved_at ? new Date(s.resolved_at).toISOString() : null })),
      contacts: contactIds.map((id) => ({ name: cards.get(id)?.name ?? '' })).filter((x) => x.name),
      files: files.map((f) => ({ id: f.fileId, name: f.name, kind: f.kind, sizeBytes: f.sizeBytes, downloadable: f.downloadable })),
      calls: calls.map((k) => ({ id: k.callId, title: k.title, status: k.status, startedAt: k.startedAt, endedAt: k.endedAt })),
    };
  });
}

/** A shared upload's bytes: shown in the room, downloads on for the room and the token; the download recorded. */
export async function roomFile(deps: Deps, token: unknown, fileId: string, source: string | undefined): Promise<{ meta: BlobMeta; name: string }> {
  await limitGuest(deps, source);
  return deps.db.tx(async (q) => {
    const now = deps.clock.now();
    const g = await admit(q, token, now);
    const file = (await sharedFiles(q, g)).find((f) => f.fileId === fileId);
    if (!file) throw new ApiError('NOT_FOUND', `file ${fileId} is not in this room`);
    if (!file.downloadable) {
      throw new ApiError('FORBIDDEN_SCOPE', `missing role downloader of file ${fileId} in this room: ask whoever shared it for a link with downloads`);
    }
    await recordView(q, g, 'file', file.fileId, now);
    return {
      meta: { orgId: g.orgId, sha256: file.sha256!, size: file.sizeBytes, contentType: file.contentType ?? 'application/octet-stream' },
      name: file.name,
    };
  });
}

/** An .ics of a call this guest was admitted to (join_calls); recorded. */
export async function roomCallIcs(deps: Deps, token: unknown, callId: string, source: string | undefined): Promise<string> {
  await limitGuest(deps, source);
  return deps.db.tx(async (q) => {
    const now = deps.clock.now();
    const g = await admit(q, token, now);
    const ids = await admittedCallIds(q, g);
    if (!ids.includes(callId)) throw new ApiError('NOT_FOUND', `call ${callId} is not in this room`);
    const [call] = await guestCalls(q, g.orgId, [callId]);
    if (!call) throw new ApiError('NOT_FOUND', `call ${callId} is not in this room`);
    await recordView(q, g, 'ics', null, now);
    return callIcs(call, { now, roomUrl: `${deps.config.publicUrl}/room`, host: new URL(deps.config.publicUrl).hostname });
  });
}
