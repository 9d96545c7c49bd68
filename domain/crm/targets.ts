import { ApiError } from '../../protocol/errors.js';
import { crm as c } from '../../protocol/methods/crm/index.js';
import { one } from '../../db/types.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { requireNamableMember } from '../people/index.js';
import { FORECAST_SQL, periodRange, PROBABILITY_SQL, roundHalfAway } from './pipeline.js';

/*
 * Targets (quotas) per owner or the org, period and currency. Nobody sets their own (FORBIDDEN_SCOPE). Attainment
 * counts won deals closed in the period in the target's currency; open deals closing in it give open, weighted,
 * commit and best case. Other currencies are counted in `uncounted`, never converted (no FX).
 */

interface TargetRow {
  target_id: string;
  owner_key: string;
  period: string;
  currency: string;
  amount_cents: string | number;
  version: number;
  set_by: string;
  set_at: string | Date;
}
const TARGET_COLUMNS = 'target_id, owner_key, period, currency, amount_cents, version, set_by, set_at';

const toTarget = (r: TargetRow) => ({
  id: r.target_id,
  ownerId: r.owner_key,
  period: r.period,
  currency: r.currency,
  amountCents: Number(r.amount_cents),
  version: Number(r.version),
  setBy: r.set_by,
  setAt: new Date(r.set_at).toISOString(),
});

export const setTarget = handler(c.setTarget, async (ctx, p) => {
  if (p.ownerId === ctx.principal.id) {
    throw new ApiError('FORBIDDEN_SCOPE', `missing role target setter on ${p.ownerId}: nobody sets their own target; ask a manager or an admin to set it`);
  }
  if (p.ownerId !== 'org') await requireNamableMember(ctx.q, ctx.orgId, p.ownerId, 'ownerId');
  const now = ctx.deps.clock.now().toISOString();
  await ctx.q.query(
    `INSERT INTO crm_targets (org_id, target_id, owner_key, period, currency, amount_cents, version, set_by, set_at) VALUES ($1, $2, $3, $4, $5, $6, 0, $7, $8)
     ON CONFLICT (org_id, owner_key, period, currency) DO NOTHING`,
    [ctx.orgId, newId('tgt'), p.ownerId, p.period, p.currency, p.amountCents, ctx.principal.id, now],
  );
  const row = one(
    await ctx.q.query<TargetRow>(
      `SELECT ${TARGET_COLUMNS} FROM crm_targets WHERE org_id = $1 AND owner_key = $2 AND period = $3 AND currency = $4 FOR UPDATE`,
      [ctx.orgId, p.ownerId, p.period, p.currency],
    ),
  );
  // version 0: the row this call just made.
  if (Number(row.version) > 0 && Number(row.amount_cents) === p.amountCents) {
    await ctx.emit('crm.target.set', row.target_id, { targetId: row.target_id, ownerId: p.ownerId, period: p.period, currency: p.currency, noop: true });
    return { target: toTarget(row), changed: false };
  }
  const saved = one(
    await ctx.q.query<TargetRow>(
      `UPDATE crm_targets SET amount_cents = $3, version = version + 1, set_by = $4, set_at = $5 WHERE org_id = $1 AND target_id = $2 RETURNING ${TARGET_COLUMNS}`,
      [ctx.orgId, row.target_id, p.amountCents, ctx.principal.id, now],
    ),
  );
  await ctx.emit('crm.target.set', saved.target_id, {
    targetId: saved.target_id,
    ownerId: p.ownerId,
    period: p.period,
    currency: p.currency,
    amountCents: p.amountCents,
    previousCents: Number(row.version) > 0 ? Number(row.amount_cents) : null,
    version: Number(saved.version),
  });
  return { target: toTarget(saved), changed: true };
});

interface Sums {
  owner_id: string;
  currency: string;
  won_n: number;
  won: string;
  open_n: number;
  open: string;
  weighted100: string;
  commit: string;
  best: string;
}

export const getTargets = handler(c.getTargets, async (ctx, p) => {
  const range = periodRange(p.period);
  const targets = await ctx.q.query<TargetRow>(
    `SELECT ${TARGET_COLUMNS} FROM crm_targets WHERE org_id = $1 AND period = $2 AND version > 0 ${p.ownerId ? 'AND owner_key = $3' : ''}
      ORDER BY owner_key = 'org' DESC, owner_key, currency`,
    p.ownerId ? [ctx.orgId, p.period, p.ownerId] : [ctx.orgId, p.period],
  );
  const byOwner = p.ownerId && p.ownerId !== 'org';
  const won = `status = 'won' AND closed_on >= $2 AND closed_on < $3`;
  const open = `status = 'open' AND close_date >= $2 AND close_date < $3`;
  const forecast = FORECAST_SQL('stage', 'forecast_category');
  const sums = await ctx.q.query<Sums>(
    `SELECT owner_id, currency,
            count(*) FILTER (WHERE ${won})::int AS won_n, coalesce(sum(amount_cents) FILTER (WHERE ${won}), 0)::text AS won,
            count(*) FILTER (WHERE ${open})::int AS open_n, coalesce(sum(amount_cents) FILTER (WHERE ${open}), 0)::text AS open,
            coalesce(sum(amount_cents * ${PROBABILITY_SQL('stage')}) FILTER (WHERE ${open}), 0)::text AS weighted100,
            coalesce(sum(amount_cents) FILTER (WHERE ${open} AND ${forecast} = 'commit'), 0)::text AS commit,
            coalesce(sum(amount_cents) FILTER (WHERE ${open} AND ${forecast} IN ('commit', 'best_case')), 0)::text AS best
       FROM crm_deals WHERE org_id = $1 AND ((${won}) OR (${open})) ${byOwner ? 'AND owner_id = $4' : ''}
      GROUP BY owner_id, currency ORDER BY owner_id, currency`,
    byOwner ? [ctx.orgId, range.from, range.until, p.ownerId] : [ctx.orgId, range.from, range.until],
  );
  const add = (acc: Map<string, Sums>, key: string, s: Sums) => {
    const a = acc.get(key);
    if (!a) return acc.set(key, { ...s });
    a.won_n += s.won_n;
    a.open_n += s.open_n;
    for (const k of ['won', 'open', 'weighted100', 'commit', 'best'] as const) a[k] = String(BigInt(a[k]) + BigInt(s[k]));
    return acc;
  };
  // Per owner and currency, and the org's per currency.
  const groups = new Map<string, Sums>();
  for (const s of sums) {
    add(groups, `${s.owner_id} ${s.currency}`, s);
    add(groups, `org ${s.currency}`, { ...s, owner_id: 'org' });
  }
  const out = targets.map((t) => {
    const g = groups.get(`${t.owner_key} ${t.currency}`);
    const target = Number(t.amount_cents);
    const wonCents = Number(g?.won ?? 0);
    return {
      target: toTarget(t),
      wonCents,
      attainmentBps: target > 0 ? Number(roundHalfAway(BigInt(wonCents) * 10_000n, BigInt(target))) : 0,
      openCents: Number(g?.open ?? 0),
      weightedCents: Number(roundHalfAway(BigInt(g?.weighted100 ?? 0), 100n)),
      commitCents: Number(g?.commit ?? 0),
      bestCaseCents: Number(g?.best ?? 0),
      gapCents: Math.max(0, target - wonCents),
    };
  });
  // Owners with a target this period: their deals in currencies without one are counted, not priced.
  const owners = new Set(targets.map((t) => t.owner_key));
  const priced = new Set(targets.map((t) => `${t.owner_key} ${t.currency}`));
  const uncounted = [...groups.entries()]
    .filter(([key, g]) => owners.has(g.owner_id) && !priced.has(key))
    .map(([, g]) => ({ ownerId: g.owner_id, currency: g.currency, won: g.won_n, open: g.open_n }))
    .sort((a, b) =>
      a.ownerId === b.ownerId ? a.currency.localeCompare(b.currency) : a.ownerId === 'org' ? -1 : b.ownerId === 'org' ? 1 : a.ownerId.localeCompare(b.ownerId),
    );
  return { period: p.period, from: range.from, to: range.to, targets: out, uncounted };
});
