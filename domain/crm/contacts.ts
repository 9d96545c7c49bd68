import { badRequest, conflict } from '../../protocol/errors.js';
import { crm as c, type Role } from '../../protocol/methods/crm/index.js';
import { one, type Queryable } from '../../db/types.js';
import type { HandlerCtx } from '../core/handler.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { findOrMakePerson, renameParty, resolveParty, setPersonEmail } from '../directory/index.js';
import { checkVersion, CONTACT_COLUMNS, liveAccount, loadContact, loadDeal, requireNotDeleted, toContacts, type ContactRow } from './model.js';

/*
 * Contacts: the sales role of a directory person. createContact finds the person by email before making one, and
 * a person has one live contact (created:false the second time). Name and email are the person's: updateContact
 * writes them through. A deleted contact is a tombstone (the person and the interactions stay); its roles go.
 */

const contactOut = async (ctx: HandlerCtx, row: ContactRow) => (await toContacts(ctx.q, ctx.orgId, [row]))[0];

/** CONFLICT for a contact that cannot be written, naming the way forward. */
function requireLive(row: ContactRow): void {
  if (row.status === 'merged') throw conflict(`contact ${row.contact_id} was merged into ${row.merged_into}; use ${row.merged_into}`);
  if (row.status === 'deleted') throw conflict(`contact ${row.contact_id} is deleted; create a new contact for person ${row.person_id} (crm.createContact)`);
}

/** The directory person a CRM act names: by id (an active person), else found by email or made with this name. */
export async function personFor(ctx: HandlerCtx, p: { personId?: string; email?: string; name?: string }): Promise<{ partyId: string; created: boolean }> {
  if (p.personId !== undefined) {
    const party = await resolveParty(ctx.q, ctx.orgId, p.personId);
    if (party.kind !== 'person') throw badRequest('personId', `${p.personId} is not a person`);
    if (party.status !== 'active')
      throw conflict(`personId: person ${party.partyId} is archived; restore it (directory.archivePerson with archived: false) first`);
    return { partyId: party.partyId, created: false };
  }
  if (p.email === undefined) throw badRequest('email', 'required unless personId is given');
  if (p.name === undefined) throw badRequest('name', 'required unless personId is given');
  return findOrMakePerson(ctx, { name: p.name, email: p.email }, 'crm');
}

export const createContact = handler(c.createContact, async (ctx, p) => {
  const person = await personFor(ctx, p);
  if (p.accountId !== undefined) await liveAccount(ctx.q, ctx.orgId, p.accountId, 'accountId');
  // One live contact per person, whoever else is making it now.
  await ctx.q.query(`SELECT pg_advisory_xact_lock(hashtext('crm:contact:' || $1 || ':' || $2))`, [ctx.orgId, person.partyId]);
  const [existing] = await ctx.q.query<ContactRow>(`SELECT ${CONTACT_COLUMNS} FROM crm_contacts WHERE org_id = $1 AND person_id = $2 AND status = 'active'`, [
    ctx.orgId,
    person.partyId,
  ]);
  if (existing) {
    const contact = await contactOut(ctx, existing);
    await ctx.emit('crm.contact.create', existing.contact_id, {
      contactId: existing.contact_id,
      personId: person.partyId,
      created: false,
      personCreated: false,
      noop: true,
    });
    return { contact, created: false, personCreated: false };
  }
  const contactId = newId('ctc');
  const now = ctx.deps.clock.now().toISOString();
  const row = one(
    await ctx.q.query<ContactRow>(
      `INSERT INTO crm_contacts (org_id, contact_id, person_id, account_id, title, created_by, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
       RETURNING ${CONTACT_COLUMNS}`,
      [ctx.orgId, contactId, person.partyId, p.accountId ?? null, p.title?.trim() || null, ctx.principal.id, now],
    ),
  );
  const contact = await contactOut(ctx, row);
  await ctx.emit('crm.contact.create', contactId, {
    contactId,
    personId: person.partyId,
    accountId: row.account_id,
    created: true,
    personCreated: person.created,
  });
  return { contact, created: true, personCreated: person.created };
});

export const updateContact = handler(c.updateContact, async (ctx, p) => {
  const row = await loadContact(ctx.q, ctx.orgId, p.contactId, true);
  requireLive(row);
  checkVersion('contact', row.contact_id, row.version, p.expectedVersion, 'crm.listContacts');
  const fields: string[] = [];
  const title = p.title === undefined ? row.title : p.title.trim() || null;
  if (title !== row.title) fields.push('title');
  const accountId = p.accountId === undefined ? row.account_id : p.accountId;
  if (accountId !== row.account_id) {
    if (accountId !== null) await liveAccount(ctx.q, ctx.orgId, accountId, 'accountId');
    fields.push('accountId');
  }
  if (p.name !== undefined && (await renameParty(ctx, row.person_id, p.name))) fields.push('name');
  if (p.email !== undefined && (await setPersonEmail(ctx, row.person_id, p.email))) fields.push('email');
  if (fields.length === 0) {
    const contact = await contactOut(ctx, row);
    await ctx.emit('crm.contact.update', row.contact_id, { contactId: row.contact_id, version: Number(row.version), noop: true });
    return { contact, changed: false };
  }
  const saved = one(
    await ctx.q.query<ContactRow>(
      `UPDATE crm_contacts SET title = $3, account_id = $4, version = version + 1, updated_at = $5 WHERE org_id = $1 AND contact_id = $2
       RETURNING ${CONTACT_COLUMNS}`,
      [ctx.orgId, row.contact_id, title, accountId, ctx.deps.clock.now().toISOString()],
    ),
  );
  const contact = await contactOut(ctx, saved);
  await ctx.emit('crm.contact.update', row.contact_id, { contactId: row.contact_id, fields, accountId: saved.account_id, version: Number(saved.version) });
  return { contact, changed: true };
});

export const deleteContact = handler(c.deleteContact, async (ctx, p) => {
  const row = await loadContact(ctx.q, ctx.orgId, p.contactId, true);
  if (row.status === 'merged') throw conflict(`contact ${row.contact_id} was merged into ${row.merged_into}; delete ${row.merged_into} instead`);
  if (row.status === 'deleted') {
    const contact = await contactOut(ctx, row);
    await ctx.emit('crm.contact.delete', row.contact_id, { contactId: row.contact_id, rolesRemoved: 0, noop: true });
    return { contact, changed: false, rolesRemoved: 0 };
  }
  const removed = await ctx.q.query<{ deal_id: string }>(`DELETE FROM crm_deal_contacts WHERE org_id = $1 AND contact_id = $2 RETURNING deal_id`, [
    ctx.orgId,
    row.contact_id,
  ]);
  const now = ctx.deps.clock.now().toISOString();
  const saved = one(
    await ctx.q.query<ContactRow>(
      `UPDATE crm_contacts SET status = 'deleted', deleted_at = $3, version = version + 1, updated_at = $3 WHERE org_id = $1 AND contact_id = $2
       RETURNING ${CONTACT_COLUMNS}`,
      [ctx.orgId, row.contact_id, now],
    ),
  );
  const contact = await contactOut(ctx, saved);
  await ctx.emit('crm.contact.delete', row.contact_id, { contactId: row.contact_id, personId: row.person_id, rolesRemoved: removed.length });
  return { contact, changed: true, rolesRemoved: removed.length };
});

/** A deal's roles, by contact then role. */
export async function dealRoles(q: Queryable, orgId: string, dealId: string): Promise<{ contactId: string; role: Role }[]> {
  const rows = await q.query<{ contact_id: string; role: Role }>(
    `SELECT contact_id, role FROM crm_deal_contacts WHERE org_id = $1 AND deal_id = $2 ORDER BY contact_id, role`,
    [orgId, dealId],
  );
  return rows.map((r) => ({ contactId: r.contact_id, role: r.role }));
}

export const linkContact = handler(c.linkContact, async (ctx, p) => {
  const deal = await loadDeal(ctx.q, ctx.orgId, p.dealId, true);
  requireNotDeleted(deal);
  if (deal.status !== 'open') throw conflict(`deal ${deal.deal_id} is ${deal.status}; reopen it (crm.moveStage) before changing its roles`);
  const contact = await loadContact(ctx.q, ctx.orgId, p.contactId);
  if (!p.remove) requireLive(contact);
  const now = ctx.deps.clock.now().toISOString();
  const done = p.remove
    ? await ctx.q.query(`DELETE FROM crm_deal_contacts WHERE org_id = $1 AND deal_id = $2 AND contact_id = $3 AND role = $4 RETURNING link_id`, [
        ctx.orgId,
        deal.deal_id,
        contact.contact_id,
        p.role,
      ])
    : await ctx.q.query(
        `INSERT INTO crm_deal_contacts (org_id, link_id, deal_id, contact_id, role, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (org_id, deal_id, contact_id, role) DO NOTHING RETURNING link_id`,
        [ctx.orgId, newId('dcl'), deal.deal_id, contact.contact_id, p.role, ctx.principal.id, now],
      );
  const base = { dealId: deal.deal_id, contactId: contact.contact_id, role: p.role, removed: p.remove };
  if (done.length === 0) {
    const roles = await dealRoles(ctx.q, ctx.orgId, deal.deal_id);
    await ctx.emit('crm.contact.link', contact.contact_id, { ...base, noop: true });
    return { roles, changed: false };
  }
  await ctx.q.query(`UPDATE crm_deals SET version = version + 1, updated_at = $3 WHERE org_id = $1 AND deal_id = $2`, [ctx.orgId, deal.deal_id, now]);
  const roles = await dealRoles(ctx.q, ctx.orgId, deal.deal_id);
  await ctx.emit('crm.contact.link', contact.contact_id, base);
  return { roles, changed: true };
});
