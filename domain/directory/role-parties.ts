import { conflict } from '../../protocol/errors.js';
import { one, type Queryable } from '../../db/types.js';
import type { HandlerCtx } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { lockKeys } from './channel-store.js';
import { createContactParty, matchContact, renameChanges, setPrimaryValue } from './contact-write.js';
import { partyRows, requireWritableParty } from './model.js';
import { normaliseEmail, normaliseWebsite } from './normalise.js';
import { insertParty, writeChanges, type Change } from './party-write.js';

/*
 * The parties another family's roles stand on (CRM accounts are organisations' roles, contacts persons'): find the
 * party before making one (an email's holder, a domain's organisation, a name's only organisation), and write a
 * name, domain or email through to the party. The same keys and locks as the directory's own calls; the calling
 * family appends the call's one event (its record is what happened).
 */

/** The active organisation holding this domain (a site or bare domain), else the one of this name, else a new one. */
export async function findOrMakeOrg(ctx: HandlerCtx, p: { name: string; domain?: string }, origin: 'crm'): Promise<{ partyId: string; created: boolean }> {
  const site = p.domain === undefined ? null : normaliseWebsite(p.domain, 'domain');
  if (site) {
    await lockKeys(ctx.q, ctx.orgId, [`orgdomain:${site.domain}`]);
    const [byDomain] = await ctx.q.query<{ party_id: string }>(
      `SELECT party_id FROM directory_parties WHERE org_id = $1 AND kind = 'org' AND status = 'active' AND domain = $2 ORDER BY created_at, party_id LIMIT 1`,
      [ctx.orgId, site.domain],
    );
    if (byDomain) return { partyId: byDomain.party_id, created: false };
  }
  const { fold } = one(await ctx.q.query<{ fold: string }>('SELECT dir_fold($1) AS fold', [p.name.trim()]));
  await lockKeys(ctx.q, ctx.orgId, [`orgname:${fold}`]);
  const named = await ctx.q.query<{ party_id: string; domain: string | null }>(
    `SELECT party_id, domain FROM directory_parties WHERE org_id = $1 AND kind = 'org' AND status = 'active' AND name_fold = $2 ORDER BY created_at, party_id LIMIT 6`,
    [ctx.orgId, fold],
  );
  // A namesake with another domain is another company; one without a domain is this one.
  const same = named.filter((r) => site === null || r.domain === null);
  if (same.length === 1) {
    if (site)
      await writeChanges(ctx, same[0].party_id, [
        { field: 'domain', column: 'website', value: site.website },
        { field: 'domain', column: 'domain', value: site.domain },
      ]);
    return { partyId: same[0].party_id, created: false };
  }
  if (same.length > 1) {
    throw conflict(
      `name: ${same.length > 5 ? 'more than 5' : same.length} organisations have this name (${same
        .slice(0, 5)
        .map((r) => r.party_id)
        .join(', ')}); give the domain, or merge them (directory.proposeMerge) first`,
    );
  }
  const partyId = newId('co');
  await insertParty(ctx, {
    kind: 'org',
    partyId,
    displayName: p.name.trim().split(/\s+/).join(' '),
    origin,
    website: site?.website ?? null,
    domain: site?.domain ?? null,
  });
  return { partyId, created: true };
}

/** The person holding this email (merges followed; archived: CONFLICT naming the way back), else a new one of this name. */
export async function findOrMakePerson(ctx: HandlerCtx, p: { name: string; email: string }, origin: 'crm'): Promise<{ partyId: string; created: boolean }> {
  const key = normaliseEmail(p.email, 'email');
  await lockKeys(ctx.q, ctx.orgId, [`${key.kind}:${key.key}`]);
  const found = await matchContact(ctx, key, null);
  if (found) return { partyId: found.partyId, created: false };
  const made = await createContactParty(ctx, { kind: 'person', name: p.name, email: p.email }, origin);
  return { partyId: made.partyId, created: true };
}

/** Rename a party (the old name kept as an alias); whether it changed. */
export async function renameParty(ctx: HandlerCtx, partyId: string, name: string): Promise<boolean> {
  const row = await requireWritableParty(ctx.q, ctx.orgId, partyId);
  const changes = renameChanges(row, name);
  if (changes.length === 0) return false;
  await writeChanges(ctx, partyId, changes);
  return true;
}

/** Set an organisation's site and domain; whether it changed. */
export async function setOrgDomain(ctx: HandlerCtx, partyId: string, domain: string): Promise<boolean> {
  const site = normaliseWebsite(domain, 'domain');
  const row = await requireWritableParty(ctx.q, ctx.orgId, partyId);
  if (row.domain === site.domain) return false;
  const changes: Change[] = [
    { field: 'domain', column: 'website', value: site.website },
    { field: 'domain', column: 'domain', value: site.domain },
  ];
  await writeChanges(ctx, partyId, changes);
  return true;
}

/** A person's primary email (a new one is added as primary; the old stays); whether it changed. */
export async function setPersonEmail(ctx: HandlerCtx, partyId: string, email: string): Promise<boolean> {
  const row = await requireWritableParty(ctx.q, ctx.orgId, partyId);
  return setPrimaryValue(ctx, row, 'email', email, 'crm');
}

/** What a role's read shows of its parties: name, primary email, domain, by id (unknown ids absent). */
export async function partyCards(
  q: Queryable,
  orgId: string,
  ids: readonly string[],
): Promise<Map<string, { name: string; email: string | null; domain: string | null; status: string }>> {
  const rows = await partyRows(q, orgId, [...new Set(ids)]);
  return new Map(rows.map((r) => [r.party_id, { name: r.display_name, email: r.email, domain: r.domain, status: r.status }]));
}
