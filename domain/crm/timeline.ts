import { badRequest, conflict } from '../../protocol/errors.js';
import { crm as c, MAX_PINS, REDACTED } from '../../protocol/methods/crm/index.js';
import { one } from '../../db/types.js';
import { handler } from '../core/handler.js';
import { requireNamableMember } from '../people/index.js';
import {
  accountTarget,
  contactTarget,
  dealTargets,
  idsOf,
  INTERACTION_COLUMNS,
  insertInteraction,
  loadInteraction,
  occurredAt,
  toInteractions,
  toLogged,
  uniqueTargets,
  type InteractionRow,
  type Target,
} from './interactions.js';
import { loadAccount, loadContact, loadDeal } from './model.js';
import { linkEmail, linkFiles } from './links.js';
import { ask } from './ask/index.js';

/*
 * The timeline: logInteraction, logDealDecision, pinNote, redactInteraction, listInteractions. Summaries and decisions
 * stay in crm_interactions (events carry ids, kinds and codes); a redaction overwrites them for good, which the chain
 * never held, so it still verifies. Pins: at most MAX_PINS per deal, account or contact, counted under a lock per
 * target taken in id order.
 */

export const logInteraction = handler(c.logInteraction, async (ctx, p) => {
  const targets: Target[] = [];
  if (p.dealId !== undefined) targets.push(...(await dealTargets(ctx.q, ctx.orgId, p.dealId)));
  if (p.accountId !== undefined) targets.push(await accountTarget(ctx.q, ctx.orgId, p.accountId));
  for (const [i, id] of (p.contactIds ?? []).entries()) targets.push(await contactTarget(ctx.q, ctx.orgId, id, `contactIds.${i}`));
  if (targets.length === 0) throw badRequest('dealId', 'name what it is about: dealId, accountId or contactIds (at least one)');
  const links = uniqueTargets(targets);
  const at = occurredAt(ctx, p.occurredAt);
  const row = await insertInteraction(ctx, { kind: p.kind, direction: p.direction, occurredAt: at, summary: p.summary.trim() || p.summary }, links);
  const interaction = await toLogged(ctx.q, ctx.orgId, row);
  await ctx.emit('crm.interaction.log', row.interaction_id, {
    interactionId: row.interaction_id,
    kind: p.kind,
    direction: p.direction,
    occurredAt: at,
    dealIds: idsOf(links, 'deal'),
    accountIds: idsOf(links, 'account'),
    contactIds: idsOf(links, 'contact'),
  });
  return { interaction };
});

export const logDealDecision = handler(c.logDealDecision, async (ctx, p) => {
  const targets = await dealTargets(ctx.q, ctx.orgId, p.dealId);
  const decidedBy = p.decidedBy ?? ctx.principal.id;
  if (decidedBy.startsWith('ctc_')) await contactTarget(ctx.q, ctx.orgId, decidedBy, 'decidedBy');
  else if (p.decidedBy !== undefined) await requireNamableMember(ctx.q, ctx.orgId, decidedBy, 'decidedBy');
  const at = occurredAt(ctx, p.occurredAt);
  const row = await insertInteraction(
    ctx,
    {
      kind: 'decision',
      direction: 'internal',
      occurredAt: at,
      summary: p.rationale.trim() || p.rationale,
      decision: p.decision.trim() || p.decision,
      decidedBy,
    },
    targets,
  );
  const interaction = await toLogged(ctx.q, ctx.orgId, row);
  await ctx.emit('crm.decision.log', row.interaction_id, { interactionId: row.interaction_id, dealId: p.dealId, decidedBy, occurredAt: at });
  return { interaction };
});

export const pinNote = handler(c.pinNote, async (ctx, p) => {
  const row = await loadInteraction(ctx.q, ctx.orgId, p.interactionId, true);
  const done = async (saved: InteractionRow, changed: boolean) => {
    const interaction = await toLogged(ctx.q, ctx.orgId, saved);
    await ctx.emit('crm.interaction.pin', saved.interaction_id, { interactionId: saved.interaction_id, pinned: p.pinned, ...(changed ? {} : { noop: true }) });
    return { interaction, changed };
  };
  if (row.pinned === p.pinned) return done(row, false);
  const targets = await ctx.q.query<{ target_id: string }>(
    `SELECT target_id FROM crm_interaction_links WHERE org_id = $1 AND interaction_id = $2 ORDER BY target_id`,
    [ctx.orgId, row.interaction_id],
  );
  if (p.pinned) {
    if (row.status === 'redacted') throw conflict(`interaction ${row.interaction_id} is redacted; there is nothing left to pin (log a new one)`);
    // One lock per target, in id order, so two pins racing for a target's last place cannot both win.
    for (const t of targets) await ctx.q.query(`SELECT pg_advisory_xact_lock(hashtext('crm:pins:' || $1 || ':' || $2))`, [ctx.orgId, t.target_id]);
    const [full] = await ctx.q.query<{ target_id: string; n: number }>(
      `SELECT target_id, count(*)::int AS n FROM crm_interaction_links WHERE org_id = $1 AND target_id = ANY($2::text[]) AND pinned
        GROUP BY target_id HAVING count(*) >= $3 ORDER BY target_id LIMIT 1`,
      [ctx.orgId, targets.map((t) => t.target_id), MAX_PINS],
    );
    if (full) {
      throw conflict(
        `${full.target_id} has ${MAX_PINS} pinned interactions already (the most); unpin one (crm.pinNote with pinned: false; crm.listInteractions lists them first) and pin again`,
      );
    }
  }
  const now = ctx.deps.clock.now().toISOString();
  const saved = one(
    await ctx.q.query<InteractionRow>(
      `UPDATE crm_interactions i SET pinned = $3, pinned_at = CASE WHEN $3 THEN $4::timestamptz END WHERE i.org_id = $1 AND i.interaction_id = $2
       RETURNING ${INTERACTION_COLUMNS}`,
      [ctx.orgId, row.interaction_id, p.pinned, now],
    ),
  );
  await ctx.q.query(`UPDATE crm_interaction_links SET pinned = $3 WHERE org_id = $1 AND interaction_id = $2`, [ctx.orgId, row.interaction_id, p.pinned]);
  return done(saved, true);
});

export const redactInteraction = handler(c.redactInteraction, async (ctx, p) => {
  const row = await loadInteraction(ctx.q, ctx.orgId, p.interactionId, true);
  const done = async (saved: InteractionRow, changed: boolean) => {
    const interaction = await toLogged(ctx.q, ctx.orgId, saved);
    await ctx.emit('crm.interaction.redact', saved.interaction_id, {
      interactionId: saved.interaction_id,
      reason: changed ? p.reason : saved.redacted_reason,
      ...(changed ? {} : { noop: true }),
    });
    return { interaction, changed };
  };
  if (row.status === 'redacted') return done(row, false);
  const saved = one(
    await ctx.q.query<InteractionRow>(
      `UPDATE crm_interactions i SET summary = $3, decision = NULL, status = 'redacted', redacted_reason = $4, redacted_by = $5, redacted_at = $6
        WHERE i.org_id = $1 AND i.interaction_id = $2 RETURNING ${INTERACTION_COLUMNS}`,
      [ctx.orgId, row.interaction_id, REDACTED, p.reason, ctx.principal.id, ctx.deps.clock.now().toISOString()],
    ),
  );
  return done(saved, true);
});

/** A keyset cursor over (pinned DESC, occurred_at DESC, id DESC). */
const encode = (r: InteractionRow) => Buffer.from(JSON.stringify([r.pinned, new Date(r.occurred_at).toISOString(), r.interaction_id])).toString('base64url');
function decode(cursor: string): [boolean, string, string] {
  try {
    const [pinned, at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof pinned === 'boolean' && typeof at === 'string' && !Number.isNaN(Date.parse(at)) && typeof id === 'string' && id.length <= 64) {
      return [pinned, at, id];
    }
  } catch {
    // refused below
  }
  throw badRequest('cursor', 'not a cursor this list returned');
}

export const listInteractions = handler(c.listInteractions, async (ctx, p) => {
  const given = (['dealId', 'accountId', 'contactId'] as const).filter((k) => p[k] !== undefined);
  if (given.length > 1) throw badRequest(given[1], `give one of dealId, accountId, contactId (not ${given.join(' and ')})`);
  // Another org's or an unknown target: NOT_FOUND, as every crm id.
  if (p.dealId) await loadDeal(ctx.q, ctx.orgId, p.dealId);
  if (p.accountId) await loadAccount(ctx.q, ctx.orgId, p.accountId);
  if (p.contactId) await loadContact(ctx.q, ctx.orgId, p.contactId);
  const target = p.dealId ?? p.accountId ?? p.contactId;
  // By target: the link rows' copy of time and pin (one index range); else the interactions themselves.
  const k = target ? 'l' : 'i';
  const params: unknown[] = [ctx.orgId];
  const where = [`i.org_id = $1`];
  if (target) where.push(`l.target_id = $${params.push(target)}`);
  if (p.kinds) where.push(`i.kind = ANY($${params.push(p.kinds)}::text[])`);
  if (p.since) where.push(`${k}.occurred_at >= $${params.push(new Date(p.since).toISOString())}`);
  if (p.cursor) {
    const [pinned, at, id] = decode(p.cursor);
    where.push(`(${k}.pinned, ${k}.occurred_at, ${k}.interaction_id) < ($${params.push(pinned)}, $${params.push(at)}::timestamptz, $${params.push(id)})`);
  }
  const from = target ? `crm_interaction_links l JOIN crm_interactions i ON i.org_id = l.org_id AND i.interaction_id = l.interaction_id` : `crm_interactions i`;
  const rows = await ctx.q.query<InteractionRow>(
    `SELECT ${INTERACTION_COLUMNS} FROM ${from} WHERE ${where.join(' AND ')}
      ORDER BY ${k}.pinned DESC, ${k}.occurred_at DESC, ${k}.interaction_id DESC LIMIT $${params.push(p.limit + 1)}`,
    params,
  );
  const page = rows.slice(0, p.limit);
  const interactions = await toInteractions(ctx.q, ctx.orgId, page, ctx.principal.scopes.has('email.read'));
  return { interactions, nextCursor: rows.length > p.limit ? encode(page[page.length - 1]) : null };
});

/** The timeline area's handlers, as the family map spreads them (links.ts and ask/ with them). */
export const crmTimelineHandlers = { logInteraction, logDealDecision, pinNote, redactInteraction, listInteractions, linkEmail, linkFiles, ask };
