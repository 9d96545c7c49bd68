import type { Queryable } from '../../db/types.js';
import type { MergeChangeLog, PartyRefs, PartyRole, PartyRoleSource } from '../directory/index.js';

/*
 * CRM's side of one record (docs/families/directory.md, One person, one record): an account is a directory
 * organisation's sales role, a contact a person's. The directory shows these roles (getOrg/getPerson, the role
 * filter) and, when it merges two parties, calls the hook below inside its change log (a revert restores exactly):
 * the merged party's contact (or account) folds into the survivor's, its deal roles, interactions and deals move;
 * a guest token's person is a plain column the merge repoints.
 */

export const crmPartyRoles: PartyRoleSource = {
  roles: ['crm.account', 'crm.contact'],
  async read(q, orgId, partyIds) {
    const rows = await q.query<{ party_id: string; role: string; ref_id: string }>(
      `SELECT party_id, 'crm.account' AS role, account_id AS ref_id FROM crm_accounts WHERE org_id = $1 AND party_id = ANY($2::text[]) AND status <> 'merged'
       UNION ALL
       SELECT person_id, 'crm.contact', contact_id FROM crm_contacts WHERE org_id = $1 AND person_id = ANY($2::text[]) AND status = 'active'
       ORDER BY 1, 2, 3`,
      [orgId, partyIds],
    );
    return rows.map((r): PartyRole => ({ partyId: r.party_id, role: r.role, refId: r.ref_id }));
  },
  async holders(q, orgId, role) {
    const rows =
      role === 'crm.account'
        ? await q.query<{ id: string }>(`SELECT DISTINCT party_id AS id FROM crm_accounts WHERE org_id = $1 AND status <> 'merged'`, [orgId])
        : await q.query<{ id: string }>(`SELECT DISTINCT person_id AS id FROM crm_contacts WHERE org_id = $1 AND status = 'active'`, [orgId]);
    return rows.map((r) => r.id);
  },
};

/** Interaction links of `from` moved to `to` (the link's key holds the target: deleted and re-inserted, both logged). */
async function moveLinks(q: Queryable, orgId: string, log: MergeChangeLog, from: string, to: string): Promise<void> {
  const links = await q.query<{ interaction_id: string }>(
    `SELECT interaction_id FROM crm_interaction_links WHERE org_id = $1 AND target_id = $2 ORDER BY interaction_id`,
    [orgId, from],
  );
  for (const l of links) {
    const row = await log.delete('crm_interaction_links', { interaction_id: l.interaction_id, target_id: from });
    const [made] = await q.query<{ row: Record<string, unknown> }>(
      `INSERT INTO crm_interaction_links (org_id, interaction_id, target_id, target_kind, occurred_at, pinned)
       SELECT org_id, interaction_id, $3, target_kind, occurred_at, pinned FROM jsonb_populate_record(NULL::crm_interaction_links, $2::jsonb)
       ON CONFLICT DO NOTHING RETURNING to_jsonb(crm_interaction_links) AS row`,
      [orgId, JSON.stringify({ ...row, org_id: orgId }), to],
    );
    if (made)
      await log.record({
        table: 'crm_interaction_links',
        rowKey: { interaction_id: l.interaction_id, target_id: to },
        column: null,
        op: 'insert',
        before: null,
        after: made.row,
      });
  }
}

/** Two persons merged: the merged one's live contact folds into the survivor's (roles moved), or becomes the survivor's. */
async function foldContacts(q: Queryable, orgId: string, log: MergeChangeLog, survivorId: string, mergedId: string): Promise<void> {
  const rows = await q.query<{ contact_id: string; person_id: string; status: string; account_id: string | null; title: string | null }>(
    `SELECT contact_id, person_id, status, account_id, title FROM crm_contacts WHERE org_id = $1 AND person_id = ANY($2::text[])
      ORDER BY contact_id FOR UPDATE`,
    [orgId, [survivorId, mergedId]],
  );
  const kept = rows.find((r) => r.person_id === survivorId && r.status === 'active');
  for (const r of rows.filter((x) => x.person_id === mergedId)) {
    if (r.status !== 'active' || !kept) {
      await log.update('crm_contacts', { contact_id: r.contact_id }, { person_id: survivorId });
      continue;
    }
    const roles = await q.query<{ link_id: string; deal_id: string; role: string }>(
      `SELECT link_id, deal_id, role FROM crm_deal_contacts WHERE org_id = $1 AND contact_id = $2 ORDER BY link_id`,
      [orgId, r.contact_id],
    );
    for (const role of roles) {
      const [dup] = await q.query(`SELECT 1 FROM crm_deal_contacts WHERE org_id = $1 AND deal_id = $2 AND contact_id = $3 AND role = $4`, [
        orgId,
        role.deal_id,
        kept.contact_id,
        role.role,
      ]);
      if (dup) await log.delete('crm_deal_contacts', { link_id: role.link_id });
      else await log.update('crm_deal_contacts', { link_id: role.link_id }, { contact_id: kept.contact_id });
    }
    await moveLinks(q, orgId, log, r.contact_id, kept.contact_id);
    // What the survivor's contact lacks, the merged one gives.
    const fill: Record<string, unknown> = {};
    if (kept.account_id === null && r.account_id !== null) fill.account_id = r.account_id;
    if (kept.title === null && r.title !== null) fill.title = r.title;
    if (Object.keys(fill).length) await log.update('crm_contacts', { contact_id: kept.contact_id }, fill);
    await log.update('crm_contacts', { contact_id: r.contact_id }, { status: 'merged', merged_into: kept.contact_id });
  }
}

/** Two organisations merged: the merged one's account folds into the survivor's (deals and contacts moved), or becomes the survivor's. */
async function foldAccounts(q: Queryable, orgId: string, log: MergeChangeLog, survivorId: string, mergedId: string): Promise<void> {
  const rows = await q.query<{ account_id: string; party_id: string; status: string }>(
    `SELECT account_id, party_id, status FROM crm_accounts WHERE org_id = $1 AND party_id = ANY($2::text[]) ORDER BY account_id FOR UPDATE`,
    [orgId, [survivorId, mergedId]],
  );
  const kept = rows.find((r) => r.party_id === survivorId && r.status !== 'merged');
  for (const r of rows.filter((x) => x.party_id === mergedId)) {
    if (r.status === 'merged' || !kept) {
      await log.update('crm_accounts', { account_id: r.account_id }, { party_id: survivorId });
      continue;
    }
    for (const d of await q.query<{ deal_id: string }>(`SELECT deal_id FROM crm_deals WHERE org_id = $1 AND account_id = $2 ORDER BY deal_id`, [
      orgId,
      r.account_id,
    ])) {
      await log.update('crm_deals', { deal_id: d.deal_id }, { account_id: kept.account_id });
    }
    for (const c of await q.query<{ contact_id: string }>(`SELECT contact_id FROM crm_contacts WHERE org_id = $1 AND account_id = $2 ORDER BY contact_id`, [
      orgId,
      r.account_id,
    ])) {
      await log.update('crm_contacts', { contact_id: c.contact_id }, { account_id: kept.account_id });
    }
    await moveLinks(q, orgId, log, r.account_id, kept.account_id);
    await log.update('crm_accounts', { account_id: r.account_id }, { status: 'merged', merged_into: kept.account_id });
  }
}

export const crmPartyRefs: PartyRefs = {
  refs: [{ table: 'crm_guest_tokens', column: 'person_id' }],
  async hook({ q, orgId, survivorId, mergedId, log }) {
    if (mergedId.startsWith('co_')) await foldAccounts(q, orgId, log, survivorId, mergedId);
    else await foldContacts(q, orgId, log, survivorId, mergedId);
  },
};
