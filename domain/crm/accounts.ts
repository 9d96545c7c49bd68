import { conflict } from '../../protocol/errors.js';
import { crm as c } from '../../protocol/methods/crm/index.js';
import { one } from '../../db/types.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { findOrMakeOrg, renameParty, setOrgDomain } from '../directory/index.js';
import { requireNamableMember } from '../people/index.js';
import { ACCOUNT_COLUMNS, checkVersion, loadAccount, toAccounts, type AccountRow } from './model.js';

/*
 * Accounts: the sales role of a directory organisation. createAccount finds the organisation by domain, then by its
 * only namesake, before it makes one, and one organisation has one live account (created:false the second time).
 * A name or domain is the directory's: updateAccount writes it through. Events carry ids, owners and field names.
 */

export const createAccount = handler(c.createAccount, async (ctx, p) => {
  const ownerId = p.ownerId ?? ctx.principal.id;
  if (p.ownerId !== undefined) await requireNamableMember(ctx.q, ctx.orgId, p.ownerId, 'ownerId');
  const party = await findOrMakeOrg(ctx, { name: p.name, ...(p.domain !== undefined ? { domain: p.domain } : {}) }, 'crm');
  // One live account per organisation, whoever else is making it now.
  await ctx.q.query(`SELECT pg_advisory_xact_lock(hashtext('crm:account:' || $1 || ':' || $2))`, [ctx.orgId, party.partyId]);
  const [existing] = await ctx.q.query<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM crm_accounts WHERE org_id = $1 AND party_id = $2 AND status <> 'merged'`, [
    ctx.orgId,
    party.partyId,
  ]);
  if (existing) {
    const account = (await toAccounts(ctx.q, ctx.orgId, [existing]))[0];
    await ctx.emit('crm.account.create', existing.account_id, { accountId: existing.account_id, partyId: party.partyId, created: false, noop: true });
    return { account, created: false, partyCreated: false };
  }
  const accountId = newId('acct');
  const now = ctx.deps.clock.now().toISOString();
  const row = one(
    await ctx.q.query<AccountRow>(
      `INSERT INTO crm_accounts (org_id, account_id, party_id, owner_id, created_by, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)
       RETURNING ${ACCOUNT_COLUMNS}`,
      [ctx.orgId, accountId, party.partyId, ownerId, ctx.principal.id, now],
    ),
  );
  const account = (await toAccounts(ctx.q, ctx.orgId, [row]))[0];
  await ctx.emit('crm.account.create', accountId, { accountId, partyId: party.partyId, ownerId, created: true, partyCreated: party.created });
  return { account, created: true, partyCreated: party.created };
});

export const updateAccount = handler(c.updateAccount, async (ctx, p) => {
  const row = await loadAccount(ctx.q, ctx.orgId, p.accountId, true);
  if (row.status === 'merged') throw conflict(`account ${row.account_id} was merged into ${row.merged_into}; update ${row.merged_into} instead`);
  checkVersion('account', row.account_id, row.version, p.expectedVersion, 'crm.listAccounts');
  const fields: string[] = [];
  if (p.name !== undefined && (await renameParty(ctx, row.party_id, p.name))) fields.push('name');
  if (p.domain !== undefined && (await setOrgDomain(ctx, row.party_id, p.domain))) fields.push('domain');
  if (p.ownerId !== undefined && p.ownerId !== row.owner_id) {
    await requireNamableMember(ctx.q, ctx.orgId, p.ownerId, 'ownerId');
    fields.push('ownerId');
  }
  if (fields.length === 0) {
    const account = (await toAccounts(ctx.q, ctx.orgId, [row]))[0];
    await ctx.emit('crm.account.update', row.account_id, { accountId: row.account_id, version: Number(row.version), noop: true });
    return { account, changed: false };
  }
  const saved = one(
    await ctx.q.query<AccountRow>(
      `UPDATE crm_accounts SET owner_id = $3, version = version + 1, updated_at = $4 WHERE org_id = $1 AND account_id = $2 RETURNING ${ACCOUNT_COLUMNS}`,
      [ctx.orgId, row.account_id, p.ownerId ?? row.owner_id, ctx.deps.clock.now().toISOString()],
    ),
  );
  const account = (await toAccounts(ctx.q, ctx.orgId, [saved]))[0];
  await ctx.emit('crm.account.update', row.account_id, {
    accountId: row.account_id,
    fields,
    ...(fields.includes('ownerId') ? { ownerId: saved.owner_id } : {}),
    version: Number(saved.version),
  });
  return { account, changed: true };
});

export const archiveAccount = handler(c.archiveAccount, async (ctx, p) => {
  const row = await loadAccount(ctx.q, ctx.orgId, p.accountId, true);
  if (row.status === 'merged') throw conflict(`account ${row.account_id} was merged into ${row.merged_into}; archive ${row.merged_into} instead`);
  const target = p.archived ? 'archived' : 'active';
  if (row.status === target) {
    const account = (await toAccounts(ctx.q, ctx.orgId, [row]))[0];
    await ctx.emit('crm.account.archive', row.account_id, { accountId: row.account_id, status: target, noop: true });
    return { account, changed: false };
  }
  if (p.archived) {
    const open = await ctx.q.query<{ deal_id: string }>(
      `SELECT deal_id FROM crm_deals WHERE org_id = $1 AND account_id = $2 AND status = 'open' ORDER BY close_date, deal_id LIMIT 6`,
      [ctx.orgId, row.account_id],
    );
    if (open.length) {
      throw conflict(
        `account ${row.account_id} has ${open.length > 5 ? 'more than 5' : open.length} open deal${open.length === 1 ? '' : 's'} (${open
          .slice(0, 5)
          .map((d) => d.deal_id)
          .join(', ')}); close them (crm.closeDeal) or delete them (crm.deleteDeal) first`,
      );
    }
  }
  const now = ctx.deps.clock.now().toISOString();
  const saved = one(
    await ctx.q.query<AccountRow>(
      `UPDATE crm_accounts SET status = $3, archived_at = CASE WHEN $3 = 'archived' THEN $4::timestamptz END, version = version + 1, updated_at = $4
        WHERE org_id = $1 AND account_id = $2 RETURNING ${ACCOUNT_COLUMNS}`,
      [ctx.orgId, row.account_id, target, now],
    ),
  );
  const account = (await toAccounts(ctx.q, ctx.orgId, [saved]))[0];
  await ctx.emit('crm.account.archive', row.account_id, { accountId: row.account_id, status: target, version: Number(saved.version) });
  return { account, changed: true };
});
