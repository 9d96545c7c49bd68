import { badRequest, conflict } from '../../protocol/errors.js';
import { crm as c } from '../../protocol/methods/crm/index.js';
import { one, type Queryable } from '../../db/types.js';
import type { HandlerCtx } from '../core/handler.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { requireNamableMember } from '../people/index.js';
import { checkVersion, DEAL_COLUMNS, liveAccount, loadDeal, requireNotDeleted, toDeal, type DealRow } from './model.js';
import { closeEscalationApprovals } from './desk/model.js';

/*
 * Deals on the one pipeline. Every change of stage, amount or close date writes a history row (dsh_); a later close
 * date is a push, counted on the deal. Edits of a closed deal, and any write to a deleted one, are CONFLICT naming
 * the way forward; moveStage reopens a closed deal. Events carry ids, stages, amounts and field names, never the
 * name, next step or lost reason.
 */

type Changed = 'stage' | 'amount' | 'closeDate';

async function history(ctx: HandlerCtx, d: DealRow, changed: readonly Changed[], push: boolean): Promise<string> {
  const historyId = newId('dsh');
  await ctx.q.query(
    `INSERT INTO crm_deal_history (org_id, history_id, deal_id, n, stage, amount_cents, currency, close_date, forecast_category, changed, push, by_id, at)
     SELECT $1, $2, $3, coalesce(max(n), 0) + 1, $4, $5, $6, $7, $8, $9, $10, $11, $12 FROM crm_deal_history WHERE org_id = $1 AND deal_id = $3`,
    [
      ctx.orgId,
      historyId,
      d.deal_id,
      d.stage,
      d.amount_cents,
      d.currency,
      d.close_date,
      d.forecast_category,
      changed,
      push,
      ctx.principal.id,
      ctx.deps.clock.now().toISOString(),
    ],
  );
  return historyId;
}

/** The deal locked for an edit: not deleted, open, at the version read. */
async function editable(ctx: HandlerCtx, dealId: string, expected: number | undefined, act: string): Promise<DealRow> {
  const row = await loadDeal(ctx.q, ctx.orgId, dealId, true);
  requireNotDeleted(row);
  checkVersion('deal', row.deal_id, row.version, expected, 'crm.getDeal');
  if (row.status !== 'open') throw conflict(`deal ${row.deal_id} is ${row.status}; reopen it (crm.moveStage) before you ${act}`);
  return row;
}

async function save(ctx: HandlerCtx, dealId: string, sets: Record<string, unknown>): Promise<DealRow> {
  const cols = Object.keys(sets);
  return one(
    await ctx.q.query<DealRow>(
      `UPDATE crm_deals SET ${cols.map((k, i) => `${k} = $${i + 3}`).join(', ')}, version = version + 1, updated_at = $${cols.length + 3}
        WHERE org_id = $1 AND deal_id = $2 RETURNING ${DEAL_COLUMNS}`,
      [ctx.orgId, dealId, ...Object.values(sets), ctx.deps.clock.now().toISOString()],
    ),
  );
}

/** Open deals of the account with a similar name (trigram similarity >= 0.5), for createDeal's possibleDuplicates. */
async function similarDeals(q: Queryable, orgId: string, accountId: string, name: string): Promise<{ dealId: string; name: string }[]> {
  const rows = await q.query<{ deal_id: string; name: string }>(
    `SELECT deal_id, name FROM crm_deals WHERE org_id = $1 AND account_id = $2 AND status = 'open' AND similarity(lower(name), lower($3)) >= 0.5
      ORDER BY similarity(lower(name), lower($3)) DESC, deal_id LIMIT 5`,
    [orgId, accountId, name],
  );
  return rows.map((r) => ({ dealId: r.deal_id, name: r.name }));
}

export const createDeal = handler(c.createDeal, async (ctx, p) => {
  // The account row locked: archiveAccount's open-deals check cannot miss this deal.
  await liveAccount(ctx.q, ctx.orgId, p.accountId, 'accountId', true);
  const ownerId = p.ownerId ?? ctx.principal.id;
  if (p.ownerId !== undefined) await requireNamableMember(ctx.q, ctx.orgId, p.ownerId, 'ownerId');
  const duplicates = await similarDeals(ctx.q, ctx.orgId, p.accountId, p.name);
  const dealId = newId('deal');
  const now = ctx.deps.clock.now().toISOString();
  const row = one(
    await ctx.q.query<DealRow>(
      `INSERT INTO crm_deals (org_id, deal_id, name, account_id, owner_id, stage, status, amount_cents, currency, close_date, next_step, stage_entered_at,
                              last_activity_at, created_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'open', $7, $8, $9, $10, $11, $11, $12, $11, $11) RETURNING ${DEAL_COLUMNS}`,
      [
        ctx.orgId,
        dealId,
        p.name.trim(),
        p.accountId,
        ownerId,
        p.stage,
        p.amountCents,
        p.currency,
        p.closeDate,
        p.nextStep?.trim() || null,
        now,
        ctx.principal.id,
      ],
    ),
  );
  await history(ctx, row, ['stage', 'amount', 'closeDate'], false);
  await ctx.emit('crm.deal.create', dealId, {
    dealId,
    accountId: p.accountId,
    ownerId,
    stage: p.stage,
    amountCents: p.amountCents,
    currency: p.currency,
    possibleDuplicates: duplicates.map((d) => d.dealId),
  });
  return { deal: toDeal(row, ctx.deps.clock.now()), possibleDuplicates: duplicates };
});

export const updateDeal = handler(c.updateDeal, async (ctx, p) => {
  if (p.stage !== undefined) throw badRequest('stage', 'use crm.moveStage (won or lost: crm.closeDeal)');
  const row = await editable(ctx, p.dealId, p.expectedVersion, 'edit it');
  const sets: Record<string, unknown> = {};
  const fields: string[] = [];
  const put = (field: string, column: string, value: unknown, current: unknown) => {
    if (value === undefined || value === current) return;
    sets[column] = value;
    fields.push(field);
  };
  put('name', 'name', p.name?.trim(), row.name);
  put('amountCents', 'amount_cents', p.amountCents, Number(row.amount_cents));
  put('closeDate', 'close_date', p.closeDate, row.close_date);
  put('forecastCategory', 'forecast_category', p.forecastCategory, row.forecast_category);
  put('nextStep', 'next_step', p.nextStep === undefined ? undefined : p.nextStep.trim() || null, row.next_step);
  if (p.ownerId !== undefined && p.ownerId !== row.owner_id) {
    await requireNamableMember(ctx.q, ctx.orgId, p.ownerId, 'ownerId');
    put('ownerId', 'owner_id', p.ownerId, row.owner_id);
  }
  if (fields.length === 0) {
    await ctx.emit('crm.deal.update', row.deal_id, { dealId: row.deal_id, version: Number(row.version), noop: true });
    return { deal: toDeal(row, ctx.deps.clock.now()), changed: false };
  }
  const push = p.closeDate !== undefined && p.closeDate > row.close_date;
  if (push) sets.close_date_pushes = Number(row.close_date_pushes) + 1;
  const saved = await save(ctx, row.deal_id, sets);
  const moved: Changed[] = [...(fields.includes('amountCents') ? ['amount' as const] : []), ...(fields.includes('closeDate') ? ['closeDate' as const] : [])];
  if (moved.length) await history(ctx, saved, moved, push);
  await ctx.emit('crm.deal.update', row.deal_id, {
    dealId: row.deal_id,
    fields,
    ...(fields.includes('amountCents') ? { amountCents: Number(saved.amount_cents), currency: saved.currency } : {}),
    ...(fields.includes('ownerId') ? { ownerId: saved.owner_id } : {}),
    push,
    version: Number(saved.version),
  });
  return { deal: toDeal(saved, ctx.deps.clock.now()), changed: true };
});

export const moveStage = handler(c.moveStage, async (ctx, p) => {
  const row = await loadDeal(ctx.q, ctx.orgId, p.dealId, true);
  requireNotDeleted(row);
  checkVersion('deal', row.deal_id, row.version, p.expectedVersion, 'crm.getDeal');
  if (row.status === 'open' && row.stage === p.stage) {
    await ctx.emit('crm.deal.move', row.deal_id, { dealId: row.deal_id, from: row.stage, to: p.stage, noop: true });
    return { deal: toDeal(row, ctx.deps.clock.now()), changed: false };
  }
  const reopened = row.status !== 'open';
  const now = ctx.deps.clock.now().toISOString();
  const saved = await save(ctx, row.deal_id, {
    stage: p.stage,
    status: 'open',
    stage_entered_at: now,
    ...(reopened ? { closed_on: null, lost_reason: null } : {}),
  });
  // A reopened deal's accepted terms are offered again: the offer stands until it is closed once more.
  if (reopened && row.offer_terms_id) {
    await ctx.q.query(`UPDATE crm_terms SET status = 'offered', updated_at = $3 WHERE org_id = $1 AND terms_id = $2 AND status = 'accepted'`, [
      ctx.orgId,
      row.offer_terms_id,
      now,
    ]);
  }
  await history(ctx, saved, ['stage'], false);
  await ctx.emit('crm.deal.move', row.deal_id, { dealId: row.deal_id, from: row.stage, to: p.stage, reopened, version: Number(saved.version) });
  return { deal: toDeal(saved, ctx.deps.clock.now()), changed: true };
});

export const closeDeal = handler(c.closeDeal, async (ctx, p) => {
  if (p.outcome === 'lost' && p.lostReason === undefined) throw badRequest('lostReason', 'required when the outcome is lost');
  if (p.outcome === 'won' && p.lostReason !== undefined) throw badRequest('lostReason', 'only a lost deal has a lost reason');
  const row = await loadDeal(ctx.q, ctx.orgId, p.dealId, true);
  requireNotDeleted(row);
  checkVersion('deal', row.deal_id, row.version, p.expectedVersion, 'crm.getDeal');
  if (row.status === p.outcome) {
    await ctx.emit('crm.deal.close', row.deal_id, { dealId: row.deal_id, outcome: p.outcome, amountCents: Number(row.amount_cents), noop: true });
    return { deal: toDeal(row, ctx.deps.clock.now()), changed: false };
  }
  if (row.status !== 'open') throw conflict(`deal ${row.deal_id} is ${row.status}; reopen it (crm.moveStage) before closing it ${p.outcome}`);
  const [open] = await ctx.q.query<{ escalation_id: string; kind: string }>(
    `SELECT escalation_id, kind FROM crm_escalations WHERE org_id = $1 AND deal_id = $2 AND status = 'open' ORDER BY opened_at, escalation_id LIMIT 1`,
    [ctx.orgId, row.deal_id],
  );
  if (open) {
    throw conflict(
      `deal ${row.deal_id} has an open ${open.kind === 'terms' ? 'terms' : 'next-step'} escalation ${open.escalation_id}; have it signed (crm.signEscalation) or withdraw it (crm.returnEscalation) before closing`,
    );
  }
  const [offer] = row.offer_terms_id
    ? await ctx.q.query<{ net_cents: string }>(`SELECT net_cents FROM crm_terms WHERE org_id = $1 AND terms_id = $2`, [ctx.orgId, row.offer_terms_id])
    : [];
  const amount = p.amountCents ?? (offer ? Number(offer.net_cents) : Number(row.amount_cents));
  const today = ctx.deps.clock.now().toISOString().slice(0, 10);
  const saved = await save(ctx, row.deal_id, {
    stage: p.outcome,
    status: p.outcome,
    amount_cents: amount,
    closed_on: p.closedOn ?? today,
    lost_reason: p.outcome === 'lost' ? p.lostReason!.trim() : null,
    stage_entered_at: ctx.deps.clock.now().toISOString(),
  });
  if (p.outcome === 'won' && row.offer_terms_id) {
    await ctx.q.query(`UPDATE crm_terms SET status = 'accepted', updated_at = $3 WHERE org_id = $1 AND terms_id = $2 AND status = 'offered'`, [
      ctx.orgId,
      row.offer_terms_id,
      ctx.deps.clock.now().toISOString(),
    ]);
  }
  await history(ctx, saved, amount === Number(row.amount_cents) ? ['stage'] : ['stage', 'amount'], false);
  await ctx.emit('crm.deal.close', row.deal_id, {
    dealId: row.deal_id,
    outcome: p.outcome,
    amountCents: amount,
    currency: saved.currency,
    closedOn: p.closedOn ?? today,
    version: Number(saved.version),
  });
  return { deal: toDeal(saved, ctx.deps.clock.now()), changed: true };
});

export const delegate = handler(c.delegate, async (ctx, p) => {
  const row = await editable(ctx, p.dealId, undefined, 'delegate it');
  if (row.delegate_id === p.to) {
    await ctx.emit('crm.deal.delegate', row.deal_id, { dealId: row.deal_id, to: p.to, noop: true });
    return { deal: toDeal(row, ctx.deps.clock.now()), changed: false };
  }
  if (p.to !== null) await requireNamableMember(ctx.q, ctx.orgId, p.to, 'to');
  const saved = await save(ctx, row.deal_id, { delegate_id: p.to });
  await ctx.emit('crm.deal.delegate', row.deal_id, { dealId: row.deal_id, from: row.delegate_id, to: p.to, version: Number(saved.version) });
  return { deal: toDeal(saved, ctx.deps.clock.now()), changed: true };
});

export const deleteDeal = handler(c.deleteDeal, async (ctx, p) => {
  const row = await loadDeal(ctx.q, ctx.orgId, p.dealId, true);
  if (row.status === 'deleted') {
    await ctx.emit('crm.deal.delete', row.deal_id, { dealId: row.deal_id, roomsRevoked: 0, noop: true });
    return { deal: toDeal(row, ctx.deps.clock.now()), changed: false, roomsRevoked: 0 };
  }
  if (row.status === 'won') throw conflict(`deal ${row.deal_id} is won and counts toward targets; reopen it (crm.moveStage) first if it was never won`);
  const now = ctx.deps.clock.now().toISOString();
  // Its rooms close now (tokens die with their room: each guest request re-checks the room).
  const rooms = await ctx.q.query(
    `UPDATE crm_rooms SET status = 'revoked', revoked_by = $3, revoked_at = $4 WHERE org_id = $1 AND deal_id = $2 AND status = 'active' RETURNING room_id`,
    [ctx.orgId, row.deal_id, ctx.principal.id, now],
  );
  const withdrawn = await ctx.q.query<{ escalation_id: string }>(
    `UPDATE crm_escalations SET status = 'withdrawn', resolved_by = $3, resolved_at = $4 WHERE org_id = $1 AND deal_id = $2 AND status = 'open'
      RETURNING escalation_id`,
    [ctx.orgId, row.deal_id, ctx.principal.id, now],
  );
  await closeEscalationApprovals(
    ctx,
    withdrawn.map((e) => e.escalation_id),
    'withdrawn',
    `deal ${row.deal_id} was deleted`,
  );
  const saved = await save(ctx, row.deal_id, { status: 'deleted', deleted_at: now });
  await ctx.emit('crm.deal.delete', row.deal_id, { dealId: row.deal_id, was: row.status, roomsRevoked: rooms.length, version: Number(saved.version) });
  return { deal: toDeal(saved, ctx.deps.clock.now()), changed: true, roomsRevoked: rooms.length };
});
