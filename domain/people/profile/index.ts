import { lazyModule } from '../../../config/lazy.js';
import { badRequest, conflict, notFound } from '../../../protocol/errors.js';
import { MAX_SECTIONS, profile as c } from '../../../protocol/methods/profile.js';
import { one, type Queryable } from '../../../db/types.js';
import { family, type Family } from '../../core/family.js';
import { handler, type HandlerCtx } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { laneSignature } from '../member/lane.js';
import { checkVersion } from '../member/model.js';
import { getMember, type MemberRow } from '../member/model.js';
import { refreshDirectoryTerms } from '../member/terms.js';
import { updateAvatar } from './avatar.js';
import { loadProfile, lockProfile, requireProfileWriter, toSection, type SectionRow } from './model.js';
import { orgPeopleReads } from './org-reads.js';
import { profileSignedRecords } from './model.js';

/*
 * profile.*: what a member tells the org about themselves. Events carry ids, versions, positions and the NAMES of
 * the fields changed, never their values (a bio, a phone number, a section's text are personal data).
 */

/** libphonenumber-js (its metadata, about 0.1 s) is loaded by the first number. */
const phones = lazyModule<typeof import('libphonenumber-js')>('libphonenumber-js');

/** E.164 from an international number, else BAD_REQUEST naming params.phone. */
export function normalisePhone(raw: string): string {
  const parsed = phones().parsePhoneNumberFromString(raw.trim());
  if (!parsed || !parsed.isValid()) throw badRequest('phone', 'not a valid phone number; give it in international form, e.g. +49 30 901820');
  return parsed.number;
}

/** Trimmed tags, the first spelling of each kept (duplicates ignoring case dropped). */
function uniqueTags(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  return tags.map((t) => t.trim()).filter((t) => t !== '' && !seen.has(t.toLowerCase()) && seen.add(t.toLowerCase()));
}

type Hours = Record<string, { start: string; end: string }[]>;

/** Each day's ranges in order and not overlapping; empty days left out. */
function checkHours(hours: Hours): Hours {
  const out: Hours = {};
  for (const [day, ranges] of Object.entries(hours)) {
    if (!ranges?.length) continue;
    ranges.forEach((r, i) => {
      if (i > 0 && r.start < ranges[i - 1].end)
        throw badRequest(`workingHours.${day}.${i}`, 'starts before the range before it ends; list ranges in order without overlap');
    });
    out[day] = ranges.map(({ start, end }) => ({ start, end }));
  }
  return out;
}

const FIELDS = ['headline', 'bio', 'pronouns', 'phone', 'links', 'expertise', 'workingHours'] as const;
const COLUMN = {
  headline: 'headline',
  bio: 'bio',
  pronouns: 'pronouns',
  phone: 'phone',
  links: 'links',
  expertise: 'expertise',
  workingHours: 'working_hours',
} as const;
const JSONB = new Set(['links', 'workingHours']);

export const get = handler(c.get, async (ctx, p) => {
  const member = await getMember(ctx.q, ctx.orgId, p.memberId);
  return { profile: await loadProfile(ctx.q, ctx.deps.blobs, ctx.orgId, member) };
});

export const update = handler(c.update, async (ctx, p) => {
  const member = await requireProfileWriter(ctx.q, ctx.principal, 'profile.update', ctx.orgId, p.memberId);
  const row = await lockProfile(ctx.q, ctx.orgId, p.memberId);
  checkVersion('profile', p.memberId, row.version, p.ifVersion);
  const wanted: Record<string, unknown> = {
    headline: p.headline,
    bio: p.bio,
    pronouns: p.pronouns,
    phone: p.phone === undefined || p.phone === null ? p.phone : normalisePhone(p.phone),
    links: p.links?.map(({ label, url }) => ({ label, url: new URL(url).href })),
    expertise: p.expertise && uniqueTags(p.expertise),
    workingHours: p.workingHours === undefined || p.workingHours === null ? p.workingHours : checkHours(p.workingHours),
  };
  const current: Record<string, unknown> = {
    headline: row.headline,
    bio: row.bio,
    pronouns: row.pronouns,
    phone: row.phone,
    links: typeof row.links === 'string' ? JSON.parse(row.links) : row.links,
    expertise: row.expertise,
    workingHours: typeof row.working_hours === 'string' ? JSON.parse(row.working_hours) : row.working_hours,
  };
  const fields = FIELDS.filter((f) => wanted[f] !== undefined && JSON.stringify(wanted[f]) !== JSON.stringify(current[f]));
  if (fields.length === 0) {
    const view = await loadProfile(ctx.q, ctx.deps.blobs, ctx.orgId, member);
    await ctx.emit('profile.fields.update', p.memberId, { memberId: p.memberId, fields: [], version: Number(row.version), noop: true });
    return { profile: view, changed: false };
  }
  await laneSignature(ctx, member.kind === 'human', {
    subjectId: p.memberId,
    summary: `Change ${fields.join(', ')} on the profile of ${member.name} (${p.memberId}), a human`,
    params: p,
    completion: 'release',
  });
  const sets = fields.map((f, i) => `${COLUMN[f]} = $${i + 3}${JSONB.has(f) ? '::jsonb' : ''}`);
  await ctx.q.query(`UPDATE profiles SET ${sets.join(', ')}, version = version + 1, updated_at = now() WHERE org_id = $1 AND member_id = $2`, [
    ctx.orgId,
    p.memberId,
    ...fields.map((f) => (JSONB.has(f) && wanted[f] !== null ? JSON.stringify(wanted[f]) : wanted[f])),
  ]);
  if (fields.includes('expertise')) await refreshDirectoryTerms(ctx.q, ctx.orgId, [p.memberId]);
  const view = await loadProfile(ctx.q, ctx.deps.blobs, ctx.orgId, member);
  await ctx.emit('profile.fields.update', p.memberId, { memberId: p.memberId, fields, version: view.version });
  return { profile: view, changed: true };
});

async function getSection(q: Queryable, orgId: string, sectionId: string, lock = ''): Promise<SectionRow> {
  const [row] = await q.query<SectionRow>(
    `SELECT section_id, member_id, title, body, position, status, version, created_at, updated_at
       FROM profile_sections WHERE org_id = $1 AND section_id = $2 ${lock}`,
    [orgId, sectionId],
  );
  if (!row) throw notFound(`section ${sectionId}`);
  return row;
}

/** Put `sectionId` at `position` among the member's live sections and number them all 0..n-1. */
async function renumber(q: Queryable, orgId: string, memberId: string, sectionId: string | null, position: number | undefined): Promise<void> {
  const rows = await q.query<{ section_id: string }>(
    `SELECT section_id FROM profile_sections WHERE org_id = $1 AND member_id = $2 AND status = 'live' AND section_id IS DISTINCT FROM $3
      ORDER BY position, section_id`,
    [orgId, memberId, sectionId],
  );
  const order = rows.map((r) => r.section_id);
  if (sectionId !== null) order.splice(Math.min(position ?? order.length, order.length), 0, sectionId);
  await q.query(
    `UPDATE profile_sections s SET position = o.i - 1
       FROM unnest($3::text[]) WITH ORDINALITY AS o(id, i)
      WHERE s.org_id = $1 AND s.member_id = $2 AND s.section_id = o.id AND s.position <> o.i - 1`,
    [orgId, memberId, order],
  );
}

/** The section's profile owner may be written by this caller; the profile row is locked (sections serialise on it). */
async function writableSection(ctx: HandlerCtx, method: string, sectionId: string) {
  const row = await getSection(ctx.q, ctx.orgId, sectionId);
  const member = await requireProfileWriter(ctx.q, ctx.principal, method, ctx.orgId, row.member_id);
  await lockProfile(ctx.q, ctx.orgId, row.member_id);
  return { row: await getSection(ctx.q, ctx.orgId, sectionId, 'FOR UPDATE'), member };
}

/** The agent lane (domain/people/member/lane.ts): a human's profile changes by a human's hand or approval. */
const humanProfileHold = (ctx: HandlerCtx, member: MemberRow, what: string, params: Record<string, unknown>) =>
  laneSignature(ctx, member.kind === 'human', {
    subjectId: member.principal_id,
    summary: `${what} on the profile of ${member.name} (${member.principal_id}), a human`,
    params,
    completion: 'release',
  });

export const addSection = handler(c.addSection, async (ctx, p) => {
  const member = await requireProfileWriter(ctx.q, ctx.principal, 'profile.addSection', ctx.orgId, p.memberId);
  await lockProfile(ctx.q, ctx.orgId, p.memberId);
  const { n } = one(
    await ctx.q.query<{ n: number }>(`SELECT count(*)::int AS n FROM profile_sections WHERE org_id = $1 AND member_id = $2 AND status = 'live'`, [
      ctx.orgId,
      p.memberId,
    ]),
  );
  if (Number(n) >= MAX_SECTIONS)
    throw conflict(
      `profile of ${p.memberId} already has ${MAX_SECTIONS} sections, the most it may hold: delete one (profile.deleteSection) or add to an existing one`,
    );
  await humanProfileHold(ctx, member, `Add the section "${p.title}"`, p);
  const sectionId = newId('psec');
  await ctx.q.query(`INSERT INTO profile_sections (org_id, section_id, member_id, title, body, position) VALUES ($1, $2, $3, $4, $5, $6)`, [
    ctx.orgId,
    sectionId,
    p.memberId,
    p.title,
    p.body,
    Number(n),
  ]);
  if (p.position !== undefined) await renumber(ctx.q, ctx.orgId, p.memberId, sectionId, p.position);
  const section = toSection(await getSection(ctx.q, ctx.orgId, sectionId));
  await ctx.emit('profile.section.add', sectionId, { sectionId, memberId: p.memberId, position: section.position, version: section.version });
  return { section, changed: true };
});

export const updateSection = handler(c.updateSection, async (ctx, p) => {
  const { row, member } = await writableSection(ctx, 'profile.updateSection', p.sectionId);
  checkVersion('section', p.sectionId, row.version, p.ifVersion);
  if (row.status === 'deleted') throw conflict(`section ${p.sectionId} is deleted; add a new one (profile.addSection)`);
  const fields = (['title', 'body', 'position'] as const).filter((f) => p[f] !== undefined && p[f] !== (f === 'position' ? Number(row.position) : row[f]));
  if (fields.length === 0) {
    await ctx.emit('profile.section.update', p.sectionId, {
      sectionId: p.sectionId,
      memberId: row.member_id,
      fields: [],
      version: Number(row.version),
      noop: true,
    });
    return { section: toSection(row), changed: false };
  }
  await humanProfileHold(ctx, member, `Change ${fields.join(', ')} of the section "${row.title}" (${p.sectionId})`, p);
  await ctx.q.query(
    `UPDATE profile_sections SET title = coalesce($3, title), body = coalesce($4, body), version = version + 1, updated_at = now()
      WHERE org_id = $1 AND section_id = $2`,
    [ctx.orgId, p.sectionId, p.title ?? null, p.body ?? null],
  );
  if (fields.includes('position')) await renumber(ctx.q, ctx.orgId, row.member_id, p.sectionId, p.position);
  const section = toSection(await getSection(ctx.q, ctx.orgId, p.sectionId));
  await ctx.emit('profile.section.update', p.sectionId, {
    sectionId: p.sectionId,
    memberId: row.member_id,
    fields,
    position: section.position,
    version: section.version,
  });
  return { section, changed: true };
});

export const deleteSection = handler(c.deleteSection, async (ctx, p) => {
  const { row, member } = await writableSection(ctx, 'profile.deleteSection', p.sectionId);
  checkVersion('section', p.sectionId, row.version, p.ifVersion);
  if (row.status === 'deleted') {
    await ctx.emit('profile.section.delete', p.sectionId, {
      sectionId: p.sectionId,
      memberId: row.member_id,
      status: 'deleted',
      version: Number(row.version),
      noop: true,
    });
    return { section: toSection(row), changed: false };
  }
  await humanProfileHold(ctx, member, `Delete the section "${row.title}" (${p.sectionId})`, p);
  await ctx.q.query(
    // The tombstone keeps ids and position, not the words: a deleted section is gone for its author.
    `UPDATE profile_sections SET status = 'deleted', title = '', body = '', version = version + 1, updated_at = now() WHERE org_id = $1 AND section_id = $2`,
    [ctx.orgId, p.sectionId],
  );
  await renumber(ctx.q, ctx.orgId, row.member_id, null, undefined);
  const section = toSection(await getSection(ctx.q, ctx.orgId, p.sectionId));
  await ctx.emit('profile.section.delete', p.sectionId, { sectionId: p.sectionId, memberId: row.member_id, status: 'deleted', version: section.version });
  return { section, changed: true };
});

export const profileHandlers = family('profile', { get, update, updateAvatar, addSection, updateSection, deleteSection });

/** The profile family, as domain/deployed.ts lists it. */
export const profileFamily: Family = { name: 'profile', methods: profileHandlers, reads: orgPeopleReads, signedRecords: profileSignedRecords };
