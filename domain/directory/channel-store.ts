import { one, type Queryable } from '../../db/types.js';
import { newId } from '../core/ids.js';
import { normaliseIm, tryEmail, tryPhone, type ChannelKey, type ChannelKind } from './normalise.js';
import { resolveParty, type PartyKind } from './model.js';

/* Channel rows: insert with the one-primary-per-kind rule, the email-holder check, and lookup by value. */

export interface ChannelRow {
  channel_id: string;
  party_id: string;
  kind: ChannelKind;
  service: string | null;
  value: string;
  key: string;
  domain: string | null;
  label: string | null;
  is_primary: boolean;
  source: string;
  status: 'active' | 'removed';
  created_at: string;
}

export const CHANNEL_COLUMNS = 'c.channel_id, c.party_id, c.kind, c.service, c.value, c.key, c.domain, c.label, c.is_primary, c.source, c.status, c.created_at';

export const toChannel = (r: ChannelRow) => ({
  id: r.channel_id,
  partyId: r.party_id,
  kind: r.kind,
  service: r.service,
  value: r.value,
  key: r.key,
  label: r.label,
  primary: r.is_primary,
  source: r.source,
  status: r.status,
  createdAt: new Date(r.created_at).toISOString(),
});

/**
 * Serialise writers of the same keys (two calls adding one email to two people): transaction-scoped advisory
 * locks, taken in a fixed order so two writers of several keys cannot deadlock.
 */
export async function lockKeys(q: Queryable, orgId: string, keys: readonly string[]): Promise<void> {
  for (const key of [...new Set(keys)].sort()) {
    await q.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`directory:${orgId}:${key}`]);
  }
}

export interface NewChannel {
  label?: string | null;
  /** Make it the primary of its kind (the kind's first active channel always is). */
  primary?: boolean;
  source: string;
  createdBy: string;
}

/** Add a channel to a party; the caller checked the party, the holder and that it does not hold the key yet. */
export async function insertChannel(q: Queryable, orgId: string, partyId: string, ck: ChannelKey, opts: NewChannel): Promise<ChannelRow> {
  const [current] = await q.query<{ channel_id: string }>(
    `SELECT channel_id FROM directory_channels WHERE org_id = $1 AND party_id = $2 AND kind = $3 AND is_primary`,
    [orgId, partyId, ck.kind],
  );
  const primary = !current || opts.primary === true;
  if (current && primary) {
    await q.query('UPDATE directory_channels SET is_primary = false WHERE org_id = $1 AND channel_id = $2', [orgId, current.channel_id]);
  }
  const row = one(
    await q.query<ChannelRow>(
      `INSERT INTO directory_channels AS c (org_id, channel_id, party_id, kind, service, value, key, domain, label, is_primary, source, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING ${CHANNEL_COLUMNS}`,
      [orgId, newId('chn'), partyId, ck.kind, ck.service, ck.value, ck.key, ck.domain, opts.label ?? null, primary, opts.source, opts.createdBy],
    ),
  );
  return row;
}

/** The party's active channels, primary first then oldest first. */
export async function activeChannels(q: Queryable, orgId: string, partyId: string): Promise<ChannelRow[]> {
  return q.query<ChannelRow>(
    `SELECT ${CHANNEL_COLUMNS} FROM directory_channels c WHERE c.org_id = $1 AND c.party_id = $2 AND c.status = 'active'
      ORDER BY c.kind, c.is_primary DESC, c.n`,
    [orgId, partyId],
  );
}

export interface ResolvedChannel {
  channelId: string;
  kind: ChannelKind;
  key: string;
  primary: boolean;
  partyId: string;
  partyKind: PartyKind;
  partyStatus: 'active' | 'archived';
  /** The party asked not to be contacted: mail, calls and messages must not go out to it. */
  doNotContact: boolean;
}

/**
 * Who an address, number or handle belongs to (email, calendar and messaging call this): the active channel with
 * its key, an active person's before an organisation's before an archived party's, oldest first. Null when the
 * value is not a valid address or number, or nobody holds it. Merged parties are followed to their survivor.
 */
export async function resolveChannel(q: Queryable, orgId: string, by: { kind: ChannelKind; value: string; service?: string }): Promise<ResolvedChannel | null> {
  const ck = by.kind === 'email' ? tryEmail(by.value) : by.kind === 'phone' ? tryPhone(by.value) : by.service ? normaliseIm(by.service, by.value) : null;
  if (!ck) return null;
  const [row] = await q.query<{ channel_id: string; key: string; is_primary: boolean; party_id: string }>(
    `SELECT c.channel_id, c.key, c.is_primary, c.party_id FROM directory_channels c
       JOIN directory_parties p ON p.org_id = c.org_id AND p.party_id = c.party_id
      WHERE c.org_id = $1 AND c.kind = $2 AND c.key = $3 AND c.status = 'active'
      ORDER BY (p.status = 'active') DESC, (p.status = 'merged'), (p.kind = 'person') DESC, c.n LIMIT 1`,
    [orgId, ck.kind, ck.key],
  );
  if (!row) return null;
  const party = await resolveParty(q, orgId, row.party_id);
  return {
    channelId: row.channel_id,
    kind: ck.kind,
    key: row.key,
    primary: row.is_primary,
    partyId: party.partyId,
    partyKind: party.kind,
    partyStatus: party.status,
    doNotContact: party.doNotContact,
  };
}

/**
 * A party's email address to write to: its primary active email, else its oldest active one; null when it has
 * none. Merges are not followed here (callers resolve the party first). The calendar invites directory persons here.
 */
export async function primaryEmailOf(q: Queryable, orgId: string, partyId: string): Promise<string | null> {
  const [row] = await q.query<{ value: string }>(
    `SELECT c.value FROM directory_channels c WHERE c.org_id = $1 AND c.party_id = $2 AND c.kind = 'email' AND c.status = 'active'
      ORDER BY c.is_primary DESC, c.n LIMIT 1`,
    [orgId, partyId],
  );
  return row?.value ?? null;
}
