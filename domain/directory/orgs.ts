import type { CountryCode } from 'libphonenumber-js/max';
import { directory as c } from '../../protocol/methods/directory/index.js';
import { conflict } from '../../protocol/errors.js';
import type { HandlerCtx } from '../core/handler.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { checkVersion } from '../people/index.js';
import { lockKeys } from './channel-store.js';
import { candidatesOf, identifierHolder } from './dedupe.js';
import { orgDetail } from './detail.js';
import { getPartyRow, requireWritableParty, toOrg, toTombstone } from './model.js';
import { DEFAULT_COUNTRY, normaliseIdentifier, normaliseTags, normaliseWebsite } from './normalise.js';
import {
  addNewChannels,
  aliasesAfterRename,
  archiveEvent,
  channelKeys,
  cleanAliases,
  differing,
  insertParty,
  setArchived,
  writeChanges,
} from './party-write.js';
import { refreshEmployerName } from './terms.js';

/* directory.createOrg, updateOrg, archiveOrg, getOrg. An identifier is one organisation's: two active ones never share it. */

/**
 * Set identifiers (a null value removes the scheme), refusing one another active organisation holds. Returns
 * whether anything changed.
 */
async function setIdentifiers(ctx: HandlerCtx, partyId: string, given: Record<string, string | null>): Promise<boolean> {
  const wanted = Object.entries(given).map(([scheme, value]) => ({
    scheme,
    value: value === null ? null : normaliseIdentifier(scheme, value, `identifiers.${scheme}`),
  }));
  await lockKeys(
    ctx.q,
    ctx.orgId,
    wanted.flatMap((w) => (w.value === null ? [] : [`id:${w.scheme}:${w.value}`])),
  );
  const current = new Map(
    (
      await ctx.q.query<{ scheme: string; value: string }>('SELECT scheme, value FROM directory_identifiers WHERE org_id = $1 AND party_id = $2', [
        ctx.orgId,
        partyId,
      ])
    ).map((r) => [r.scheme, r.value]),
  );
  let changed = false;
  for (const w of wanted) {
    if (w.value === (current.get(w.scheme) ?? null)) continue;
    changed = true;
    if (w.value === null) {
      await ctx.q.query('DELETE FROM directory_identifiers WHERE org_id = $1 AND party_id = $2 AND scheme = $3', [ctx.orgId, partyId, w.scheme]);
      continue;
    }
    const holder = await identifierHolder(ctx.q, ctx.orgId, w.scheme, w.value, partyId);
    if (holder) throw conflict(`identifiers.${w.scheme}: held by ${holder}; update that organisation, or merge the two (directory.proposeMerge)`);
    await ctx.q.query(
      `INSERT INTO directory_identifiers (org_id, party_id, scheme, value) VALUES ($1, $2, $3, $4)
       ON CONFLICT (org_id, party_id, scheme) DO UPDATE SET value = excluded.value`,
      [ctx.orgId, partyId, w.scheme, w.value],
    );
  }
  return changed;
}

export const createOrg = handler(c.createOrg, async (ctx, p) => {
  const country = (p.country ?? DEFAULT_COUNTRY) as CountryCode;
  const channels = p.channels ?? [];
  const keys = channelKeys(channels, country);
  const site = p.website === undefined ? null : normaliseWebsite(p.website, 'website');
  const partyId = newId('co');
  const name = p.name.trim();
  const tags = normaliseTags(p.tags ?? []);
  await insertParty(ctx, {
    kind: 'org',
    partyId,
    displayName: name,
    origin: 'manual',
    legalName: p.legalName ?? null,
    website: site?.website ?? null,
    domain: site?.domain ?? null,
    aliases: p.aliases,
    tags,
    addresses: p.addresses,
    notes: p.notes ?? null,
    doNotContact: p.doNotContact,
    country: p.country ?? null,
  });
  await setIdentifiers(ctx, partyId, p.identifiers ?? {});
  await addNewChannels(ctx, partyId, 'org', channels, keys);
  const possibleDuplicates = await candidatesOf(ctx.q, ctx.orgId, partyId);
  const org = await orgDetail(ctx.deps.families, ctx.q, ctx.orgId, await getPartyRow(ctx.q, ctx.orgId, partyId), ctx.principal.id);
  await ctx.emit('directory.org.create', partyId, {
    partyId,
    origin: 'manual',
    channels: keys.length,
    tags: tags.length,
    identifiers: Object.keys(org.identifiers).sort(),
    possibleDuplicates: possibleDuplicates.map((d) => ({ partyId: d.partyId, score: d.score })),
    version: org.version,
  });
  return { org, possibleDuplicates, changed: true };
});

export const updateOrg = handler(c.updateOrg, async (ctx, p) => {
  const row = await requireWritableParty(ctx.q, ctx.orgId, p.orgId);
  checkVersion('organisation', p.orgId, row.version, p.ifVersion);
  const name = p.name?.trim() ?? row.display_name;
  const renamed = name !== row.display_name;
  const aliases = renamed
    ? aliasesAfterRename(p.aliases ?? row.aliases, row.display_name, name)
    : p.aliases === undefined
      ? undefined
      : cleanAliases(p.aliases, name);
  const site = p.website === undefined || p.website === null ? p.website : normaliseWebsite(p.website, 'website');
  const changes = differing([
    { field: 'name', column: 'display_name', value: name, current: row.display_name },
    { field: 'legalName', column: 'legal_name', value: p.legalName, current: row.legal_name },
    { field: 'website', column: 'website', value: site === undefined ? undefined : (site?.website ?? null), current: row.website },
    { field: 'domain', column: 'domain', value: site === undefined ? undefined : (site?.domain ?? null), current: row.domain },
    { field: 'aliases', column: 'aliases', value: aliases, current: row.aliases },
    { field: 'tags', column: 'tags', value: p.tags === undefined ? undefined : normaliseTags(p.tags), current: row.tags },
    { field: 'addresses', column: 'addresses', value: p.addresses, current: row.addresses, json: true },
    { field: 'notes', column: 'notes', value: p.notes, current: row.notes },
    { field: 'doNotContact', column: 'do_not_contact', value: p.doNotContact, current: row.do_not_contact },
    { field: 'country', column: 'country', value: p.country, current: row.country },
  ]);
  const identifiersChanged = p.identifiers === undefined ? false : await setIdentifiers(ctx, p.orgId, p.identifiers);
  const fields = [...changes.map((ch) => ch.field), ...(identifiersChanged ? ['identifiers'] : [])];
  if (fields.length === 0) {
    const org = await orgDetail(ctx.deps.families, ctx.q, ctx.orgId, row, ctx.principal.id);
    await ctx.emit('directory.org.update', p.orgId, { partyId: p.orgId, fields: [], version: Number(row.version), noop: true });
    return { org, changed: false };
  }
  await writeChanges(ctx, p.orgId, changes);
  // Its people's search documents hold the employer's name: carried over in this transaction.
  if (renamed) await refreshEmployerName(ctx.q, ctx.orgId, p.orgId);
  const org = await orgDetail(ctx.deps.families, ctx.q, ctx.orgId, await getPartyRow(ctx.q, ctx.orgId, p.orgId), ctx.principal.id);
  await ctx.emit('directory.org.update', p.orgId, { partyId: p.orgId, fields, version: org.version });
  return { org, changed: true };
});

export const archiveOrg = handler(c.archiveOrg, async (ctx, p) => {
  const { row, changed } = await setArchived(ctx, p.orgId, p.archived);
  await archiveEvent(ctx, 'org', row, changed);
  return { org: toOrg(row), changed };
});

export const getOrg = handler(c.getOrg, async (ctx, p) => {
  const row = await getPartyRow(ctx.q, ctx.orgId, p.orgId);
  if (row.status === 'merged') return { org: toTombstone(row) };
  return { org: await orgDetail(ctx.deps.families, ctx.q, ctx.orgId, row, ctx.principal.id) };
});
