import { orgPeopleReadContracts as c } from '../../../protocol/reads/people.js';
import type { Db } from '../../../db/types.js';
import { reads } from '../../core/family.js';
import { ReadAnswer, readHandler } from '../../core/handler.js';
import { getMember, toMember, type Member } from '../member/model.js';
import { listMembers } from '../member/list.js';
import { findOrgBySlug } from '../org/service.js';
import { readTeam } from '../team/index.js';
import { uidFor, writeVCards, type VCardProperty } from '../../vcard.js';
import { initialsSvg } from './avatar.js';
import { avatarOf, loadProfile, readProfileRow, stableSignedPath } from './model.js';

/* GET /api/v1/org/{members/{id}, teams/{id}, avatar/{memberId}/{size}, directory.vcf}: the gateway adds the ETag. */

const card = ({ version: _v, createdAt: _c, updatedAt: _u, ...rest }: Member) => rest;

export const memberRead = readHandler(c['org/members/{id}'], async (ctx, query) => {
  const row = await getMember(ctx.q, ctx.orgId, query.id);
  return { member: toMember(row), profile: await loadProfile(ctx.q, ctx.deps.blobs, ctx.orgId, row) };
});

const TEAM_PAGE = 500;

export const teamRead = readHandler(c['org/teams/{id}'], async (ctx, query) => {
  const team = await readTeam(ctx.q, ctx.orgId, query.id);
  // The member search sets transaction-local settings: its own short transaction, as GET /directory does.
  const page = await ctx.deps.db.tx((q) => listMembers(q, ctx.orgId, { teamId: query.id, limit: TEAM_PAGE }));
  return { team, members: page.members.map(card), truncated: page.nextCursor !== null };
});

export const avatarRead = readHandler(c['org/avatar/{memberId}/{size}'], async (ctx, query) => {
  const member = await getMember(ctx.q, ctx.orgId, query.memberId);
  const sha256 = avatarOf(await readProfileRow(ctx.q, ctx.orgId, member.principal_id))?.[query.size];
  if (sha256) {
    const signed = stableSignedPath(ctx.deps.blobs, ctx.orgId, member.principal_id, sha256);
    const maxAge = Math.max(0, Math.floor((Date.parse(signed.expiresAt) - Date.now()) / 1000) - 60);
    return new ReadAnswer('', { location: signed.path, 'cache-control': `private, max-age=${maxAge}` }, 302);
  }
  return new ReadAnswer(initialsSvg(member.principal_id, member.name, Number(query.size)), {
    'content-type': 'image/svg+xml; charset=utf-8',
    // An SVG can carry script: this one is ours and escaped, and it is never run as a page anyway.
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
    'x-content-type-options': 'nosniff',
  });
});

/** Every active member, page by page (the member family's own list). */
async function activeMembers(db: Db, orgId: string): Promise<Member[]> {
  const all: Member[] = [];
  let cursor: string | undefined;
  do {
    const page = await db.tx((q) => listMembers(q, orgId, { status: 'active', limit: 500, cursor }));
    all.push(...page.members);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return all;
}

/** Family and given names from a display name: the last word is the family name (a guess; FN stays exact). */
function nameParts(name: string): [string, string] {
  const words = name.trim().split(/\s+/);
  return words.length > 1 ? [words[words.length - 1], words.slice(0, -1).join(' ')] : [words[0] ?? '', ''];
}

export function memberVCard(m: Member, orgId: string, orgName: string, phone: string | null): VCardProperty[] {
  const props: VCardProperty[] = [
    { name: 'UID', value: uidFor(orgId, m.id), uri: true },
    { name: 'KIND', value: m.kind === 'human' ? 'individual' : 'application' },
    { name: 'FN', value: m.name },
  ];
  if (m.kind === 'human') {
    const [family, given] = nameParts(m.name);
    props.push({ name: 'N', value: [family, given, '', '', ''] });
  }
  if (m.email) props.push({ name: 'EMAIL', value: m.email, params: { TYPE: 'work' } });
  if (phone) props.push({ name: 'TEL', value: `tel:${phone}`, params: { VALUE: 'uri', TYPE: 'work' }, uri: true });
  if (m.title) props.push({ name: 'TITLE', value: m.title });
  props.push({ name: 'ORG', value: [orgName] });
  return props;
}

export const directoryVcf = readHandler(c['org/directory.vcf'], async (ctx) => {
  const org = await findOrgBySlug(ctx.q, ctx.principal.orgSlug);
  const members = await activeMembers(ctx.deps.db, ctx.orgId);
  const phones = new Map(
    (await ctx.q.query<{ member_id: string; phone: string }>(`SELECT member_id, phone FROM profiles WHERE org_id = $1 AND phone IS NOT NULL`, [ctx.orgId])).map(
      (r) => [r.member_id, r.phone],
    ),
  );
  const body = writeVCards(members.map((m) => memberVCard(m, ctx.orgId, org?.name ?? ctx.principal.orgSlug, phones.get(m.id) ?? null)));
  return new ReadAnswer(body, { 'content-type': 'text/vcard; charset=utf-8', 'content-disposition': 'attachment; filename="directory.vcf"' });
});

export const orgPeopleReads = reads({
  'org/members/{id}': memberRead,
  'org/teams/{id}': teamRead,
  'org/avatar/{memberId}/{size}': avatarRead,
  'org/directory.vcf': directoryVcf,
});
