import { contacts as c } from '../../protocol/methods/contacts.js';
import { contactsReadContracts } from '../../protocol/reads/contacts.js';
import { family, reads, type Family } from '../core/family.js';
import { handler, readHandler } from '../core/handler.js';
import {
  addMissingValue,
  candidatesOf,
  contactKey,
  createContactParty,
  employerNamed,
  getPartyRow,
  hasStandInName,
  lockKeys,
  matchContact,
  requireWritableParty,
  setEmployer,
  splitName,
  syncContacts,
  toContact,
  toContactTombstone,
  writeChanges,
  type Change,
} from '../directory/index.js';

/*
 * contacts.upsert and GET /contacts.list: the knowledge lane's find-or-add of a party by email or phone, and
 * the sync read of every party by last change. Parties, never copies (domain/directory).
 */

type Filled = 'name' | 'organisation' | 'email' | 'phone';

export const upsert = handler(c.upsert, async (ctx, p) => {
  const email = p.email === undefined ? null : contactKey('email', p.email, 'email');
  const phone = p.phone === undefined ? null : contactKey('phone', p.phone, 'phone');
  // Two upserts of one new address make one person: the match and the create run under the keys' locks.
  await lockKeys(ctx.q, ctx.orgId, [...(email ? [`email:${email.key}`] : []), ...(phone ? [`phone:${phone.key}`] : [])]);
  const match = await matchContact(ctx, email, phone);
  if (!match) {
    const made = await createContactParty(
      ctx,
      {
        kind: 'person',
        name: p.name ?? email?.value ?? phone!.value,
        standIn: p.name === undefined,
        email: p.email,
        phone: p.phone,
        organisation: p.organisation,
      },
      'contacts',
    );
    const possibleDuplicates = await candidatesOf(ctx.q, ctx.orgId, made.partyId);
    const row = await getPartyRow(ctx.q, ctx.orgId, made.partyId);
    await ctx.emit('contacts.party.upsert', made.partyId, {
      partyId: made.partyId,
      kind: 'person',
      created: true,
      matchedBy: null,
      filled: [],
      source: p.source,
      channels: made.channels,
      worksAt: made.employer?.partyId ?? null,
      employerCreated: made.employer?.created ?? false,
      possibleDuplicates: possibleDuplicates.map((d) => ({ partyId: d.partyId, score: d.score })),
      version: Number(row.version),
    });
    return { contact: toContact(row), created: true, matchedBy: null, filled: [], changed: true };
  }
  const row = await requireWritableParty(ctx.q, ctx.orgId, match.partyId);
  const filled: Filled[] = [];
  const changes: Change[] = [];
  // Never a rename: a name fills only a stand-in (the address or number it was made with).
  if (p.name !== undefined && (await hasStandInName(ctx, row))) {
    const split = splitName(p.name);
    changes.push({ field: 'name', column: 'display_name', value: split.displayName });
    if (row.kind === 'person')
      changes.push({ field: 'name', column: 'given_name', value: split.given }, { field: 'name', column: 'family_name', value: split.family });
    filled.push('name');
  }
  let worksAt: string | null = null;
  if (p.organisation !== undefined && row.kind === 'person' && row.employer_id === null) {
    const employer = await employerNamed(ctx, p.organisation, 'contacts', 'organisation');
    if (await setEmployer(ctx, row, employer.partyId)) {
      filled.push('organisation');
      worksAt = employer.partyId;
    }
  }
  if (email && (await addMissingValue(ctx, row, email, 'contacts', 'email'))) filled.push('email');
  if (phone && (await addMissingValue(ctx, row, phone, 'contacts', 'phone'))) filled.push('phone');
  const base = { partyId: row.party_id, kind: row.kind, created: false, matchedBy: match.by, source: p.source };
  if (filled.length === 0) {
    await ctx.emit('contacts.party.upsert', row.party_id, { ...base, filled: [], version: Number(row.version), noop: true });
    return { contact: toContact(row), created: false, matchedBy: match.by, filled, changed: false };
  }
  await writeChanges(ctx, row.party_id, changes);
  const after = await getPartyRow(ctx.q, ctx.orgId, row.party_id);
  await ctx.emit('contacts.party.upsert', row.party_id, { ...base, filled, worksAt, version: Number(after.version) });
  return { contact: toContact(after), created: false, matchedBy: match.by, filled, changed: true };
});

export const contactsHandlers = family('contacts', { upsert });

/** GET /contacts.list: its own short transaction (the fuzzy threshold is transaction-local). */
export const list = readHandler(contactsReadContracts['contacts.list'], async (ctx, query) =>
  ctx.deps.db.tx(async (q) => {
    const page = await syncContacts(q, ctx.orgId, query);
    return { contacts: page.rows.map((r) => (r.status === 'merged' ? toContactTombstone(r) : toContact(r))), nextCursor: page.nextCursor };
  }),
);

export const contactsReads = reads({ 'contacts.list': list });

/** The contacts family, as domain/deployed.ts lists it. */
export const contactsFamily: Family = { name: 'contacts', methods: contactsHandlers, reads: contactsReads };
