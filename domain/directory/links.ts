import { directory as c } from '../../protocol/methods/directory/index.js';
import type { RELATIONS } from '../../protocol/methods/directory/links.js';
import { badRequest, conflict, notFound } from '../../protocol/errors.js';
import { one, type Queryable } from '../../db/types.js';
import type { HandlerCtx } from '../core/handler.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { lockKeys } from './channel-store.js';
import { bumpParty, kindOf, noun, requireWritableParty, resolveParty, type PartyKind } from './model.js';
import { refreshEmployers } from './terms.js';

/*
 * directory.linkParty and unlinkParty. A link is said of its from party (that party is written: locked, version
 * bumped; merged or archived is a CONFLICT); its to party is a target (a merged id is followed to the survivor).
 * Ended links stay as history. works_at links keep the person's employer columns current (refreshEmployers).
 */

type Relation = (typeof RELATIONS)[number];

interface Rule {
  from: PartyKind | null;
  to: PartyKind | null;
  /** Following links of this relation upwards must never come back (a reporting line, a group of companies). */
  cycle?: string;
  /** Said both ways at once: B partner_of A is A partner_of B. */
  symmetric?: boolean;
}

const RULES: Readonly<Record<Relation, Rule>> = {
  works_at: { from: 'person', to: 'org' },
  reports_to: { from: 'person', to: 'person', cycle: 'reporting' },
  assistant_of: { from: 'person', to: 'person' },
  client_of: { from: null, to: null },
  subsidiary_of: { from: 'org', to: 'org', cycle: 'subsidiary' },
  partner_of: { from: null, to: null, symmetric: true },
};

const prefixOf = (kind: PartyKind) => (kind === 'org' ? 'co_' : 'per_');

export interface LinkRow {
  link_id: string;
  from_id: string;
  to_id: string;
  relation: Relation;
  role: string | null;
  is_primary: boolean;
  since: string | null;
  until: string | null;
  status: 'active' | 'ended';
  created_at: string;
  ended_at: string | null;
}

const LINK_COLUMNS = `link_id, from_id, to_id, relation, role, is_primary, since::text AS since, until::text AS until, status, created_at, ended_at`;

export const toLink = (r: LinkRow) => ({
  id: r.link_id,
  fromId: r.from_id,
  toId: r.to_id,
  relation: r.relation,
  role: r.role,
  primary: r.is_primary,
  since: r.since,
  until: r.until,
  status: r.status,
  createdAt: new Date(r.created_at).toISOString(),
  endedAt: r.ended_at ? new Date(r.ended_at).toISOString() : null,
});

async function getLink(q: Queryable, orgId: string, linkId: string): Promise<LinkRow> {
  const [row] = await q.query<LinkRow>(`SELECT ${LINK_COLUMNS} FROM directory_links WHERE org_id = $1 AND link_id = $2`, [orgId, linkId]);
  if (!row) throw notFound(`link ${linkId}`);
  return row;
}

/** Whether linking from -> to would close a loop: following `relation` up from `to` reaches `from`. */
async function closesLoop(q: Queryable, orgId: string, relation: Relation, from: string, to: string): Promise<boolean> {
  const [hit] = await q.query(
    `WITH RECURSIVE up(id) AS (
       SELECT $3::text
       UNION
       SELECT l.to_id FROM directory_links l JOIN up ON l.from_id = up.id
        WHERE l.org_id = $1 AND l.relation = $2 AND l.status = 'active')
     SELECT 1 FROM up WHERE id = $4 LIMIT 1`,
    [orgId, relation, to, from],
  );
  return hit !== undefined;
}

/** The active link of this relation between the two (either way round for a symmetric relation). */
async function activeLink(q: Queryable, orgId: string, relation: Relation, from: string, to: string, both: boolean): Promise<LinkRow | undefined> {
  const [row] = await q.query<LinkRow>(
    `SELECT ${LINK_COLUMNS} FROM directory_links
      WHERE org_id = $1 AND relation = $2 AND status = 'active'
        AND ((from_id = $3 AND to_id = $4) OR ($5 AND from_id = $4 AND to_id = $3))`,
    [orgId, relation, from, to, both],
  );
  return row;
}

/** Make a works_at link its person's primary (the former primary, if any, stops being it). */
async function makePrimary(q: Queryable, orgId: string, link: LinkRow): Promise<void> {
  await q.query(`UPDATE directory_links SET is_primary = false WHERE org_id = $1 AND from_id = $2 AND relation = 'works_at' AND is_primary`, [
    orgId,
    link.from_id,
  ]);
  await q.query('UPDATE directory_links SET is_primary = true WHERE org_id = $1 AND link_id = $2', [orgId, link.link_id]);
}

/** Refuse a pairing the relation does not allow, before reading anything (ids carry their kind). */
function checkKinds(relation: Relation, fromId: string, toId: string): Rule {
  const rule = RULES[relation];
  if (rule.from && kindOf(fromId) !== rule.from)
    throw badRequest('fromId', `${relation} needs ${rule.from === 'org' ? 'an' : 'a'} ${noun(rule.from)} (${prefixOf(rule.from)}…)`);
  if (rule.to && kindOf(toId) !== rule.to)
    throw badRequest('toId', `${relation} needs ${rule.to === 'org' ? 'an' : 'a'} ${noun(rule.to)} (${prefixOf(rule.to)}…)`);
  return rule;
}

export const linkParty = handler(c.linkParty, async (ctx, p) => {
  const rule = checkKinds(p.relation, p.fromId, p.toId);
  if (p.primary !== undefined && p.relation !== 'works_at') throw badRequest('primary', 'only a works_at link has a primary');
  const to = await resolveParty(ctx.q, ctx.orgId, p.toId);
  // One writer of a pair at a time (either way round), and of a whole tree when the relation may not loop. Taken
  // before the from row: the link's foreign key share-locks the to row, which a writer the other way holds.
  const [a, b] = [p.fromId, to.partyId].sort();
  await lockKeys(ctx.q, ctx.orgId, [`link:${p.relation}:${a}:${b}`, ...(rule.cycle ? [`link:${p.relation}`] : [])]);
  const from = await requireWritableParty(ctx.q, ctx.orgId, p.fromId);
  if (to.partyId === from.party_id) {
    throw badRequest('toId', to.mergedFrom ? `${p.toId} was merged into ${from.party_id}, the party linked from` : 'a party cannot be linked to itself');
  }
  if (to.status !== 'active') {
    throw conflict(
      `toId: ${noun(to.kind)} ${to.partyId} is archived; restore it (directory.archive${to.kind === 'org' ? 'Org' : 'Person'} with archived: false) first`,
    );
  }

  const base = { fromId: from.party_id, toId: to.partyId, relation: p.relation, ...(to.mergedFrom ? { followedFrom: to.mergedFrom } : {}) };
  const existing = await activeLink(ctx.q, ctx.orgId, p.relation, from.party_id, to.partyId, rule.symmetric === true);
  if (existing) {
    const differs = (p.role !== undefined && p.role !== existing.role) || (p.since !== undefined && p.since !== existing.since);
    if (differs) {
      throw conflict(
        `an active ${p.relation} link ${existing.link_id} between ${from.party_id} and ${to.partyId} has another ${p.role !== undefined && p.role !== existing.role ? 'role' : 'since'}; end it (directory.unlinkParty) and link again`,
      );
    }
    if (p.primary === true && !existing.is_primary) {
      await makePrimary(ctx.q, ctx.orgId, existing);
      await refreshEmployers(ctx.q, ctx.orgId, [from.party_id]);
      await bumpParty(ctx.q, ctx.orgId, from.party_id);
      const link = toLink(await getLink(ctx.q, ctx.orgId, existing.link_id));
      await ctx.emit('directory.link.create', link.id, { linkId: link.id, ...base, primary: true });
      return { link, changed: true };
    }
    await ctx.emit('directory.link.create', existing.link_id, { linkId: existing.link_id, ...base, primary: existing.is_primary, noop: true });
    return { link: toLink(existing), changed: false };
  }
  if (rule.cycle && (await closesLoop(ctx.q, ctx.orgId, p.relation, from.party_id, to.partyId))) {
    throw badRequest('toId', `would make a ${rule.cycle} cycle`);
  }
  let primary = false;
  if (p.relation === 'works_at') {
    const [current] = await ctx.q.query<{ link_id: string }>(
      `SELECT link_id FROM directory_links WHERE org_id = $1 AND from_id = $2 AND relation = 'works_at' AND is_primary`,
      [ctx.orgId, from.party_id],
    );
    primary = !current || p.primary === true;
    if (current && primary) await ctx.q.query('UPDATE directory_links SET is_primary = false WHERE org_id = $1 AND link_id = $2', [ctx.orgId, current.link_id]);
  }
  const row = one(
    await ctx.q.query<LinkRow>(
      `INSERT INTO directory_links (org_id, link_id, from_id, to_id, relation, role, is_primary, since, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::date, $9) RETURNING ${LINK_COLUMNS}`,
      [ctx.orgId, newId('plk'), from.party_id, to.partyId, p.relation, p.role ?? null, primary, p.since ?? null, ctx.principal.id],
    ),
  );
  if (p.relation === 'works_at') await refreshEmployers(ctx.q, ctx.orgId, [from.party_id]);
  await bumpParty(ctx.q, ctx.orgId, from.party_id);
  await ctx.emit('directory.link.create', row.link_id, { linkId: row.link_id, ...base, primary });
  return { link: toLink(row), changed: true };
});

/** Today as the database sees it, in UTC (the default until). */
async function today(q: Queryable): Promise<string> {
  const row = one(await q.query<{ d: string }>(`SELECT ((now() AT TIME ZONE 'UTC')::date)::text AS d`));
  return row.d;
}

const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

export const unlinkParty = handler(c.unlinkParty, async (ctx: HandlerCtx, p) => {
  const found = await getLink(ctx.q, ctx.orgId, p.linkId);
  // Ending a link of an archived party is allowed (it left the company, then was archived); a merged one names its survivor.
  await requireWritableParty(ctx.q, ctx.orgId, found.from_id, { allowArchived: true });
  const link = await getLink(ctx.q, ctx.orgId, p.linkId);
  const base = { linkId: link.link_id, fromId: link.from_id, toId: link.to_id, relation: link.relation };
  if (link.status === 'ended') {
    await ctx.emit('directory.link.end', link.link_id, { ...base, newPrimaryId: null, noop: true });
    return { link: toLink(link), newPrimaryId: null, changed: false };
  }
  const now = await today(ctx.q);
  const until = p.until ?? now;
  if (link.since !== null && until < link.since) throw badRequest('until', `before the link's since (${link.since})`);
  // A day of slack: the caller's today may be UTC's tomorrow.
  if (until > addDays(now, 1)) throw badRequest('until', 'in the future; a link ends on or before today');
  await ctx.q.query(`UPDATE directory_links SET status = 'ended', is_primary = false, until = $3::date, ended_at = now() WHERE org_id = $1 AND link_id = $2`, [
    ctx.orgId,
    link.link_id,
    until,
  ]);
  let newPrimaryId: string | null = null;
  if (link.is_primary) {
    const [next] = await ctx.q.query<{ link_id: string }>(
      `UPDATE directory_links SET is_primary = true
        WHERE org_id = $1 AND link_id = (SELECT link_id FROM directory_links
                                          WHERE org_id = $1 AND from_id = $2 AND relation = 'works_at' AND status = 'active'
                                          ORDER BY created_at, link_id LIMIT 1)
        RETURNING link_id`,
      [ctx.orgId, link.from_id],
    );
    newPrimaryId = next?.link_id ?? null;
  }
  if (link.relation === 'works_at') await refreshEmployers(ctx.q, ctx.orgId, [link.from_id]);
  await bumpParty(ctx.q, ctx.orgId, link.from_id);
  const ended = toLink(await getLink(ctx.q, ctx.orgId, link.link_id));
  await ctx.emit('directory.link.end', link.link_id, { ...base, newPrimaryId });
  return { link: ended, newPrimaryId, changed: true };
});
