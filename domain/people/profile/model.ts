import { ApiError, conflict, notFound } from '../../../protocol/errors.js';
import { AVATAR_SIZES } from '../../../protocol/methods/profile.js';
import type { Queryable } from '../../../db/types.js';
import type { BlobService, RecordCheck } from '../../../blobs/service.js';
import { heldBlob } from '../../../blobs/refs.js';
import type { Principal } from '../../core/auth.js';
import { getMember, type MemberRow } from '../member/model.js';

/** The profile row and its sections (migration 027), shaped for the contract. */

export interface ProfileRow {
  member_id: string;
  headline: string | null;
  bio: string | null;
  pronouns: string | null;
  phone: string | null;
  links: { label: string; url: string }[] | string;
  expertise: string[];
  working_hours: Record<string, { start: string; end: string }[]> | string | null;
  avatar: Record<string, string> | string | null;
  version: number;
  updated_at: string | Date;
}

export interface SectionRow {
  section_id: string;
  member_id: string;
  title: string;
  body: string;
  position: number;
  status: 'live' | 'deleted';
  version: number;
  created_at: string | Date;
  updated_at: string | Date;
}

const json = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);
const iso = (v: string | Date) => new Date(v).toISOString();

export const toSection = (r: SectionRow) => ({
  id: r.section_id,
  memberId: r.member_id,
  title: r.title,
  body: r.body,
  position: Number(r.position),
  status: r.status,
  version: Number(r.version),
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

/** The avatar's blobs by size, or null. */
export const avatarOf = (r: Pick<ProfileRow, 'avatar'> | undefined): Record<string, string> | null => (r?.avatar ? json(r.avatar) : null);

/** The blob holder of a member's avatar images (blobs/refs.ts). */
export const avatarHolder = (memberId: string) => `${memberId}#avatar`;

/** The record kind of an avatar's signed URL (rec=avatar:usr_…). */
const AVATAR_RECORD = 'avatar';

/**
 * Whether an avatar URL may still be served: the member's profile still holds those bytes (a replaced or removed
 * picture stops serving). Not bound to a reader: every member of the org sees every picture, in pages shown to others.
 */
const avatarServable: RecordCheck = async (q, orgId, record, sha256) => (await heldBlob(q, { orgId, sha256, holder: avatarHolder(record.id) })) !== null;

/** The records profile's signed URLs are bound to (domain/deployed.ts binds them at start). */
export const profileSignedRecords: ReadonlyMap<string, RecordCheck> = new Map([[AVATAR_RECORD, avatarServable]]);

/**
 * Signed URLs of a member's avatar that stay the same for a whole window (valid at least BLOB_URL_TTL_MS, at most
 * twice that), so a read that shows them keeps its ETag and browsers keep the image cached within the window.
 */
export function stableSignedPath(blobs: BlobService, orgId: string, memberId: string, sha256: string, now = Date.now()): { path: string; expiresAt: string } {
  const window = Math.max(1000, Math.ceil(blobs.config.urlTtlMs / 1000) * 1000);
  const expiresAt = Math.ceil((now + window) / window) * window;
  return blobs.signedPath(orgId, sha256, { ttlMs: expiresAt - now, record: { kind: AVATAR_RECORD, id: memberId } });
}

export function avatarView(blobs: BlobService, orgId: string, memberId: string, avatar: Record<string, string> | null) {
  if (!avatar) return null;
  const now = Date.now();
  const sizes = AVATAR_SIZES.filter((s) => avatar[s]).map((size) => {
    const signed = stableSignedPath(blobs, orgId, memberId, avatar[size], now);
    return { size, sha256: avatar[size], url: signed.path, expiresAt: signed.expiresAt };
  });
  return { sizes: sizes.map(({ size, sha256, url }) => ({ size, sha256, url })), expiresAt: sizes[0]?.expiresAt ?? new Date(now).toISOString() };
}

export async function readProfileRow(q: Queryable, orgId: string, memberId: string, lock = ''): Promise<ProfileRow | undefined> {
  const [row] = await q.query<ProfileRow>(
    `SELECT member_id, headline, bio, pronouns, phone, links, expertise, working_hours, avatar, version, updated_at
       FROM profiles WHERE org_id = $1 AND member_id = $2 ${lock}`,
    [orgId, memberId],
  );
  return row;
}

export async function liveSections(q: Queryable, orgId: string, memberId: string): Promise<SectionRow[]> {
  return q.query<SectionRow>(
    `SELECT section_id, member_id, title, body, position, status, version, created_at, updated_at
       FROM profile_sections WHERE org_id = $1 AND member_id = $2 AND status = 'live' ORDER BY position, section_id`,
    [orgId, memberId],
  );
}

/** The whole profile as profile.get shows it (an empty one for a member who never wrote one). */
export async function loadProfile(q: Queryable, blobs: BlobService, orgId: string, member: Pick<MemberRow, 'principal_id' | 'timezone'>) {
  const row = await readProfileRow(q, orgId, member.principal_id);
  const sections = await liveSections(q, orgId, member.principal_id);
  const hours = row?.working_hours ? json(row.working_hours) : null;
  return {
    memberId: member.principal_id,
    headline: row?.headline ?? null,
    bio: row?.bio ?? null,
    pronouns: row?.pronouns ?? null,
    phone: row?.phone ?? null,
    links: row ? json(row.links) : [],
    expertise: row?.expertise ?? [],
    workingHours: hours ? { timezone: member.timezone, days: hours } : null,
    avatar: avatarView(blobs, orgId, member.principal_id, avatarOf(row)),
    sections: sections.map(toSection),
    version: row ? Number(row.version) : 1,
    updatedAt: row ? iso(row.updated_at) : null,
  };
}
export type ProfileView = Awaited<ReturnType<typeof loadProfile>>;

/**
 * Who may write a profile: its member, anyone with org.write for an agent's, and only the admin scope for
 * another human's. The member must not be archived. Returns the member row.
 */
export async function requireProfileWriter(q: Queryable, principal: Principal, method: string, orgId: string, memberId: string): Promise<MemberRow> {
  const member = await getMember(q, orgId, memberId);
  if (member.principal_id !== principal.id && member.kind === 'human' && !principal.scopes.has('admin')) {
    throw new ApiError('FORBIDDEN_SCOPE', `missing scope admin for ${method}: ${memberId} is another human's profile (you may change your own and agents')`);
  }
  if (member.status === 'archived') throw conflict(`member ${memberId} is archived; reactivate it (admin.reactivate) before changing its profile`);
  return member;
}

/** The profile row locked for this transaction, created empty (version 1) on the member's first write. */
export async function lockProfile(q: Queryable, orgId: string, memberId: string): Promise<ProfileRow> {
  await q.query(`INSERT INTO profiles (org_id, member_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [orgId, memberId]);
  const row = await readProfileRow(q, orgId, memberId, 'FOR UPDATE');
  if (!row) throw notFound(`member ${memberId}`);
  return row;
}
