import type { CountryCode } from 'libphonenumber-js/max';
import { directory as c } from '../../protocol/methods/directory/index.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { checkVersion } from '../people/index.js';
import { candidatesOf } from './dedupe.js';
import { personDetail } from './detail.js';
import { getPartyRow, requireWritableParty, toPerson, toTombstone } from './model.js';
import { DEFAULT_COUNTRY, normaliseTags } from './normalise.js';
import {
  activeTarget,
  addNewChannels,
  aliasesAfterRename,
  archiveEvent,
  channelKeys,
  cleanAliases,
  differing,
  insertParty,
  joinName,
  linkFirstEmployer,
  setArchived,
  writeChanges,
} from './party-write.js';

/* directory.createPerson, updatePerson, archivePerson, getPerson. */

export const createPerson = handler(c.createPerson, async (ctx, p) => {
  const country = (p.country ?? DEFAULT_COUNTRY) as CountryCode;
  const channels = p.channels ?? [];
  const keys = channelKeys(channels, country);
  const employer = p.worksAt ? await activeTarget(ctx, p.worksAt.orgId, 'org', 'worksAt.orgId') : null;
  const partyId = newId('per');
  const displayName = p.displayName?.trim() || joinName(p.given, p.family);
  const tags = normaliseTags(p.tags ?? []);
  await insertParty(ctx, {
    kind: 'person',
    partyId,
    displayName,
    origin: 'manual',
    given: p.given.trim(),
    family: p.family?.trim() || null,
    title: p.title ?? null,
    aliases: p.aliases,
    tags,
    addresses: p.addresses,
    notes: p.notes ?? null,
    doNotContact: p.doNotContact,
    country: p.country ?? null,
  });
  await addNewChannels(ctx, partyId, 'person', channels, keys);
  if (employer) await linkFirstEmployer(ctx, partyId, employer.partyId, p.worksAt?.role ?? null);
  const possibleDuplicates = await candidatesOf(ctx.q, ctx.orgId, partyId);
  const person = await personDetail(ctx.deps.families, ctx.q, ctx.orgId, await getPartyRow(ctx.q, ctx.orgId, partyId), ctx.principal.id);
  await ctx.emit('directory.person.create', partyId, {
    partyId,
    origin: 'manual',
    channels: keys.length,
    tags: tags.length,
    worksAt: employer?.partyId ?? null,
    possibleDuplicates: possibleDuplicates.map((d) => ({ partyId: d.partyId, score: d.score })),
    version: person.version,
  });
  return { person, possibleDuplicates, changed: true };
});

export const updatePerson = handler(c.updatePerson, async (ctx, p) => {
  const row = await requireWritableParty(ctx.q, ctx.orgId, p.personId);
  checkVersion('person', p.personId, row.version, p.ifVersion);
  const given = p.given?.trim() ?? row.given_name ?? '';
  const family = p.family === undefined ? row.family_name : p.family?.trim() || null;
  // A name that was derived from given and family follows them; one set by hand stays until set again.
  const derived = row.display_name === joinName(row.given_name ?? '', row.family_name);
  const displayName = p.displayName?.trim() || (derived ? joinName(given, family) || row.display_name : row.display_name);
  const renamed = displayName !== row.display_name;
  const aliases = renamed
    ? aliasesAfterRename(p.aliases ?? row.aliases, row.display_name, displayName)
    : p.aliases === undefined
      ? undefined
      : cleanAliases(p.aliases, displayName);
  const changes = differing([
    { field: 'given', column: 'given_name', value: p.given === undefined ? undefined : given, current: row.given_name },
    { field: 'family', column: 'family_name', value: p.family === undefined ? undefined : family, current: row.family_name },
    { field: 'displayName', column: 'display_name', value: displayName, current: row.display_name },
    { field: 'title', column: 'title', value: p.title, current: row.title },
    { field: 'aliases', column: 'aliases', value: aliases, current: row.aliases },
    { field: 'tags', column: 'tags', value: p.tags === undefined ? undefined : normaliseTags(p.tags), current: row.tags },
    { field: 'addresses', column: 'addresses', value: p.addresses, current: row.addresses, json: true },
    { field: 'notes', column: 'notes', value: p.notes, current: row.notes },
    { field: 'doNotContact', column: 'do_not_contact', value: p.doNotContact, current: row.do_not_contact },
    { field: 'country', column: 'country', value: p.country, current: row.country },
  ]);
  if (changes.length === 0) {
    const person = await personDetail(ctx.deps.families, ctx.q, ctx.orgId, row, ctx.principal.id);
    await ctx.emit('directory.person.update', p.personId, { partyId: p.personId, fields: [], version: Number(row.version), noop: true });
    return { person, changed: false };
  }
  await writeChanges(ctx, p.personId, changes);
  const person = await personDetail(ctx.deps.families, ctx.q, ctx.orgId, await getPartyRow(ctx.q, ctx.orgId, p.personId), ctx.principal.id);
  await ctx.emit('directory.person.update', p.personId, { partyId: p.personId, fields: changes.map((ch) => ch.field), version: person.version });
  return { person, changed: true };
});

export const archivePerson = handler(c.archivePerson, async (ctx, p) => {
  const { row, changed } = await setArchived(ctx, p.personId, p.archived);
  await archiveEvent(ctx, 'person', row, changed);
  return { person: toPerson(row), changed };
});

export const getPerson = handler(c.getPerson, async (ctx, p) => {
  const row = await getPartyRow(ctx.q, ctx.orgId, p.personId);
  if (row.status === 'merged') return { person: toTombstone(row) };
  return { person: await personDetail(ctx.deps.families, ctx.q, ctx.orgId, row, ctx.principal.id) };
});
