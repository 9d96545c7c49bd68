import { contact as c } from '../../protocol/methods/contact.js';
import { family, type Family } from '../core/family.js';
import { handler } from '../core/handler.js';
import { checkVersion } from '../people/index.js';
import {
  candidatesOf,
  checkKindFields,
  createContactParty,
  employerNamed,
  getPartyRow,
  listContacts,
  noun,
  refreshEmployerName,
  renameChanges,
  requireWritableParty,
  setArchived,
  setEmployer,
  setPrimaryValue,
  toContact,
  writeChanges,
  type Change,
} from '../directory/index.js';

/*
 * contact.*: the address-book view of directory parties (per_/co_). Every write goes through the directory's
 * own functions, so keys, holder checks, dedupe hints and merge/archive refusals are the directory's; events
 * (contact.party.*) carry ids, counts and field names only.
 */

export const list = handler(c.list, async (ctx, p) =>
  // Its own short transaction: the search's fuzzy threshold is transaction-local (db/search.ts).
  ctx.deps.db.tx(async (q) => {
    const page = await listContacts(q, ctx.orgId, {
      q: p.q,
      kinds: p.kind ? [p.kind] : ['person', 'org'],
      statuses: p.includeArchived ? ['active', 'archived'] : ['active'],
      cursor: p.cursor,
      limit: p.limit,
    });
    return { contacts: page.rows.map(toContact), nextCursor: page.nextCursor };
  }),
);

export const add = handler(c.add, async (ctx, p) => {
  const made = await createContactParty(ctx, p, 'contact');
  const possibleDuplicates = await candidatesOf(ctx.q, ctx.orgId, made.partyId);
  const row = await getPartyRow(ctx.q, ctx.orgId, made.partyId);
  await ctx.emit('contact.party.add', made.partyId, {
    partyId: made.partyId,
    kind: p.kind,
    origin: 'contact',
    channels: made.channels,
    worksAt: made.employer?.partyId ?? null,
    employerCreated: made.employer?.created ?? false,
    possibleDuplicates: possibleDuplicates.map((d) => ({ partyId: d.partyId, score: d.score })),
    version: Number(row.version),
  });
  return { contact: toContact(row), possibleDuplicates, changed: true };
});

export const update = handler(c.update, async (ctx, p) => {
  const row = await requireWritableParty(ctx.q, ctx.orgId, p.id);
  checkVersion(noun(row.kind), p.id, row.version, p.ifVersion);
  checkKindFields(row.kind, p);
  const fields = new Set<string>();
  const changes: Change[] = [];
  if (p.name !== undefined) changes.push(...renameChanges(row, p.name));
  if (p.title !== undefined && (p.title?.trim() || null) !== row.title) changes.push({ field: 'title', column: 'title', value: p.title?.trim() || null });
  for (const ch of changes) fields.add(ch.field);
  for (const kind of ['email', 'phone'] as const) {
    const value = p[kind];
    if (value !== undefined && (await setPrimaryValue(ctx, row, kind, value, 'contact'))) fields.add(kind);
  }
  if (p.organisation !== undefined) {
    const employer = p.organisation === null ? null : await employerNamed(ctx, p.organisation, 'contact', 'organisation');
    if (await setEmployer(ctx, row, employer?.partyId ?? null)) fields.add('organisation');
  }
  if (fields.size === 0) {
    await ctx.emit('contact.party.update', p.id, { partyId: p.id, kind: row.kind, fields: [], version: Number(row.version), noop: true });
    return { contact: toContact(row), changed: false };
  }
  await writeChanges(ctx, p.id, changes);
  // Its people show its name as their organisation: carried over in this transaction.
  if (row.kind === 'org' && fields.has('name')) await refreshEmployerName(ctx.q, ctx.orgId, p.id);
  const after = await getPartyRow(ctx.q, ctx.orgId, p.id);
  await ctx.emit('contact.party.update', p.id, { partyId: p.id, kind: row.kind, fields: [...fields], version: Number(after.version) });
  return { contact: toContact(after), changed: true };
});

const archive = handler(c.delete, async (ctx, p) => {
  const { row, changed } = await setArchived(ctx, p.id, true);
  await ctx.emit('contact.party.delete', p.id, {
    partyId: p.id,
    kind: row.kind,
    status: row.status,
    version: Number(row.version),
    ...(changed ? {} : { noop: true }),
  });
  return { contact: toContact(row), changed };
});

export const contactHandlers = family('contact', { list, add, update, delete: archive });

/** The contact family, as domain/deployed.ts lists it. */
export const contactFamily: Family = { name: 'contact', methods: contactHandlers };
