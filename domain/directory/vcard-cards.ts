import type { Queryable } from '../../db/types.js';
import { toJCard, uuidV5Urn, writeVCards, type VCardProperty, type VCardVersion } from '../vcard.js';
import { CHANNEL_COLUMNS, type ChannelRow } from './channel-store.js';
import type { PartyRow } from './model.js';

/*
 * A party as a vCard (domain/vcard.ts writes the text and the jCard). UIDs are name-based UUIDs (version 5) of
 * the org and the party id under the directory's own namespace: the same card on every export, so a client
 * re-importing updates it. Only what the directory holds goes out; notes only when asked.
 */

/** The namespace of party UIDs (fixed: changing it would change every exported UID). */
export const PARTY_UID_NAMESPACE = 'c551c211-1e31-496b-8bd9-5891270c2dad';

export const partyUid = (orgId: string, partyId: string): string => uuidV5Urn(PARTY_UID_NAMESPACE, `${orgId}/${partyId}`);

/** Active channels of these parties, by party, primary first. */
export async function channelsOf(q: Queryable, orgId: string, partyIds: readonly string[]): Promise<Map<string, ChannelRow[]>> {
  const out = new Map<string, ChannelRow[]>();
  if (partyIds.length === 0) return out;
  const rows = await q.query<ChannelRow>(
    `SELECT ${CHANNEL_COLUMNS} FROM directory_channels c WHERE c.org_id = $1 AND c.party_id = ANY($2::text[]) AND c.status = 'active'
      ORDER BY c.party_id, c.kind, c.is_primary DESC, c.n`,
    [orgId, partyIds],
  );
  for (const r of rows) out.set(r.party_id, [...(out.get(r.party_id) ?? []), r]);
  return out;
}

/** A channel label as a vCard TYPE, when it is one vCard knows (free labels stay in the directory). */
function typeOf(label: string | null, kind: 'email' | 'phone' | 'adr'): string | null {
  const l = (label ?? '').trim().toLowerCase();
  if (l === 'work' || l === 'home') return l;
  if (kind === 'phone' && (l === 'mobile' || l === 'cell')) return 'cell';
  if (kind === 'phone' && l === 'fax') return 'fax';
  return null;
}

/** `20261127T081400Z`: REV in the basic format both versions read. */
const revOf = (t: string) =>
  new Date(t)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

function channelProps(channels: readonly ChannelRow[], version: VCardVersion): VCardProperty[] {
  const props: VCardProperty[] = [];
  for (const ch of channels) {
    if (ch.kind === 'email') {
      const type = typeOf(ch.label, 'email');
      const types = version === '3.0' ? ['INTERNET', ...(type ? [type.toUpperCase()] : []), ...(ch.is_primary ? ['PREF'] : [])] : type ? [type] : [];
      props.push({
        name: 'EMAIL',
        value: ch.value,
        params: { ...(types.length ? { TYPE: types } : {}), ...(version === '4.0' && ch.is_primary ? { PREF: '1' } : {}) },
      });
    } else if (ch.kind === 'phone') {
      const type = typeOf(ch.label, 'phone');
      if (version === '4.0') {
        props.push({
          name: 'TEL',
          value: `tel:${ch.key}`,
          uri: true,
          params: { VALUE: 'uri', ...(type ? { TYPE: type } : {}), ...(ch.is_primary ? { PREF: '1' } : {}) },
        });
      } else {
        const types = [...(type ? [type.toUpperCase()] : ['VOICE']), ...(ch.is_primary ? ['PREF'] : [])];
        props.push({ name: 'TEL', value: ch.key, params: { TYPE: types } });
      }
    } else {
      props.push({ name: 'IMPP', value: `${ch.service}:${ch.value}`, uri: true });
    }
  }
  return props;
}

export interface CardOptions {
  orgId: string;
  version: VCardVersion;
  includeNotes: boolean;
}

/** The properties of one party's card (FN, N and ORG structured; TEL a tel: URI in 4.0, E.164 text in 3.0). */
export function partyCard(row: PartyRow, channels: readonly ChannelRow[], o: CardOptions): VCardProperty[] {
  const person = row.kind === 'person';
  const props: VCardProperty[] = [{ name: 'UID', value: partyUid(o.orgId, row.party_id), uri: true }];
  if (o.version === '4.0') props.push({ name: 'KIND', value: person ? 'individual' : 'org' });
  props.push({ name: 'FN', value: row.display_name });
  if (person) props.push({ name: 'N', value: [row.family_name ?? '', row.given_name ?? '', '', '', ''] });
  else if (o.version === '3.0') props.push({ name: 'N', value: ['', '', '', '', ''] }, { name: 'X-ABSHOWAS', value: 'COMPANY' });
  // One NICKNAME each: a comma list is read as one name by some readers (vobject keeps only the first).
  for (const alias of row.aliases) props.push({ name: 'NICKNAME', value: alias });
  const orgName = person ? row.employer_name : row.display_name;
  if (orgName) props.push({ name: 'ORG', value: [orgName] });
  if (person && row.title) props.push({ name: 'TITLE', value: row.title });
  props.push(...channelProps(channels, o.version));
  for (const a of row.addresses) {
    const type = typeOf(a.label ?? null, 'adr');
    props.push({
      name: 'ADR',
      value: ['', '', a.lines, a.locality ?? '', a.region ?? '', a.postcode ?? '', a.country ?? ''],
      ...(type ? { params: { TYPE: o.version === '3.0' ? type.toUpperCase() : type } } : {}),
    });
  }
  if (!person && row.website) props.push({ name: 'URL', value: row.website, uri: true });
  if (row.tags.length) props.push({ name: 'CATEGORIES', value: row.tags, list: true });
  if (o.includeNotes && row.notes) props.push({ name: 'NOTE', value: row.notes });
  props.push({ name: 'REV', value: revOf(row.updated_at), timestamp: true });
  return props;
}

export const VCARD_MEDIA_TYPE = 'text/vcard; charset=utf-8';
export const JCARD_MEDIA_TYPE = 'application/vcard+json';

/** The body of a page: vCard text, or a JSON array of jCards. */
export function exportBody(cards: readonly VCardProperty[][], version: VCardVersion, format: 'vcard' | 'jcard'): string {
  return format === 'jcard' ? JSON.stringify(cards.map(toJCard)) : writeVCards(cards, version);
}
