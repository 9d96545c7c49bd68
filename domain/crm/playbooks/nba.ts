import type { z } from 'zod';
import { badRequest, conflict, notFound } from '../../../protocol/errors.js';
import { crm as c, type RiskFlag } from '../../../protocol/methods/crm/index.js';
import type { Recommendation } from '../../../protocol/methods/crm/playbooks.js';
import type { Queryable } from '../../../db/types.js';
import { handler } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { requireNamableMember } from '../../people/index.js';
import { actionText, compile, type Action, type CompiledRule, type Definition } from './compile.js';
import { dealFacts, type DealFacts, type Which } from './facts.js';
import { evaluate } from './rules.js';

/*
 * Next best action: the built-in risk rules (one per flag of pipeline.ts riskSql) and the enabled playbooks' rules,
 * run over each deal's facts at the injected clock, ranked by priority, playbook, rule id, then deal id, at most
 * PER_DEAL per deal. The run and its recommendations are recorded with a ready-to-run suggestedCall; nothing else
 * is done. Five queries whatever the number of deals (member check, playbooks, facts, run, recommendations).
 */

export const PER_DEAL = 10;

type Rec = z.output<typeof Recommendation>;

/** The built-in rules: what each risk flag recommends, and how early it ranks (1 first; playbook rules default 500). */
export const RISK_RULES: Readonly<Record<RiskFlag, { priority: number; text: string }>> = {
  overdue: { priority: 100, text: 'Overdue: the close date has passed. Close it (crm.closeDeal) or set a new close date (crm.updateDeal).' },
  stalled: { priority: 200, text: 'Stalled: longer in its stage than the stage allows. Agree the next step with the buyer, or move the stage.' },
  ghosted: { priority: 250, text: 'Ghosted: no reply since our outreach 14 or more days ago. Try another contact or channel.' },
  noPower: { priority: 300, text: 'No power: no economic buyer or decision maker on the deal. Find one and link them (crm.linkContact).' },
  noActivity: { priority: 350, text: 'No activity for 14 or more days. Reach out, and log it (crm.logInteraction).' },
  closeDatePushed: { priority: 400, text: 'The close date has moved later. Confirm the timeline with the buyer.' },
  singleThreaded: { priority: 450, text: 'Single-threaded: fewer than two contacts. Add another contact with a role.' },
  roomUnviewed: { priority: 500, text: 'The deal room has not been viewed for 7 or more days. Follow up with its guests.' },
};

interface Playbook {
  id: string;
  version: number;
  rules: CompiledRule[];
}

/** The org's enabled playbooks, compiled (one query). */
async function enabledPlaybooks(q: Queryable, orgId: string): Promise<Playbook[]> {
  const rows = await q.query<{ playbook_id: string; version: number; definition: Definition }>(
    `SELECT playbook_id, version, definition FROM crm_playbooks WHERE org_id = $1 AND enabled AND status = 'active' ORDER BY playbook_id`,
    [orgId],
  );
  return rows.map((r) => ({ id: r.playbook_id, version: Number(r.version), rules: compile(r.definition).rules }));
}

function suggestedCall(dealId: string, recommendationId: string, a: Action | null): Rec['suggestedCall'] {
  if (a?.action === 'suggest' && a.call) return { method: a.call.method, params: { ...a.call.params, dealId } };
  if (a?.action === 'holdNextStep') return { method: 'crm.holdNextStep', params: { dealId, kind: a.kind, title: a.title, reason: a.reason } };
  return { method: 'crm.taskFollowThrough', params: { dealId, recommendationId } };
}

const before = (a: Rec, b: Rec): number =>
  a.priority - b.priority || cmp(a.playbookId ?? '', b.playbookId ?? '') || cmp(a.ruleId, b.ruleId) || cmp(a.dealId, b.dealId);
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The ranked recommendations for these deals: same facts and playbooks, same output (ids aside). */
export function recommend(deals: readonly DealFacts[], playbooks: readonly Playbook[]): Rec[] {
  const out: Rec[] = [];
  for (const d of deals) {
    const mine: Rec[] = [];
    const add = (priority: number, playbook: Playbook | null, ruleId: string, action: Action | null, flags: string[], text: string) => {
      const id = newId('nbr');
      mine.push({
        id,
        dealId: d.dealId,
        rank: 0,
        priority,
        playbookId: playbook?.id ?? null,
        playbookVersion: playbook?.version ?? null,
        ruleId,
        action: action?.action ?? 'flagRisk',
        flags,
        text,
        suggestedCall: suggestedCall(d.dealId, id, action),
      });
    };
    for (const flag of d.risk) add(RISK_RULES[flag].priority, null, `risk.${flag}`, null, [flag], RISK_RULES[flag].text);
    for (const p of playbooks) {
      for (const r of p.rules) {
        if (evaluate(r.when, d.facts)) add(r.priority, p, r.id, r.then, r.then.action === 'flagRisk' ? [r.then.flag] : [], actionText(r.then));
      }
    }
    out.push(...mine.sort(before).slice(0, PER_DEAL));
  }
  return out.sort(before).map((r, i) => ({ ...r, rank: i + 1 }));
}

export interface NbaRun {
  run: { id: string; dealId: string | null; ownerId: string | null; asOf: string; deals: number; count: number };
  recommendations: Rec[];
}

/** Read, rank and record (four queries; the handler adds the member check and the event). */
export async function runNba(q: Queryable, orgId: string, by: string, now: Date, which: Which): Promise<NbaRun> {
  const playbooks = await enabledPlaybooks(q, orgId);
  const deals = await dealFacts(q, orgId, now, which);
  if ('dealId' in which) {
    const d = deals[0];
    if (!d) throw notFound(`deal ${which.dealId}`);
    if (d.status === 'deleted') throw conflict(`deal ${d.dealId} is deleted; next best action runs on open deals`);
    if (d.status !== 'open') throw conflict(`deal ${d.dealId} is ${d.status}; next best action runs on open deals (reopen it with crm.moveStage first)`);
  }
  const recs = recommend(deals, playbooks);
  const runId = newId('nba');
  const asOf = now.toISOString();
  const dealId = 'dealId' in which ? which.dealId : null;
  const ownerId = 'ownerId' in which ? which.ownerId : null;
  await q.query(`INSERT INTO crm_nba_runs (org_id, run_id, deal_id, owner_id, as_of, count, run_by, run_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $5)`, [
    orgId,
    runId,
    dealId,
    ownerId,
    asOf,
    recs.length,
    by,
  ]);
  if (recs.length > 0) {
    await q.query(
      `INSERT INTO crm_nba_recommendations (org_id, recommendation_id, run_id, deal_id, rank, priority, playbook_id, playbook_version, rule_id, action, flags,
                                            suggested_call)
       SELECT $1, r.id, $2, r.deal_id, r.rank, r.priority, r.playbook_id, r.playbook_version, r.rule_id, r.action,
              ARRAY(SELECT jsonb_array_elements_text(r.flags)), r.suggested_call
         FROM jsonb_to_recordset($3::jsonb) AS r(id text, deal_id text, rank int, priority int, playbook_id text, playbook_version int, rule_id text,
                                                 action text, flags jsonb, suggested_call jsonb)`,
      [
        orgId,
        runId,
        JSON.stringify(
          recs.map((r) => ({
            id: r.id,
            deal_id: r.dealId,
            rank: r.rank,
            priority: r.priority,
            playbook_id: r.playbookId,
            playbook_version: r.playbookVersion,
            rule_id: r.ruleId,
            action: r.action,
            flags: r.flags,
            suggested_call: r.suggestedCall,
          })),
        ),
      ],
    );
  }
  return { run: { id: runId, dealId, ownerId, asOf, deals: deals.length, count: recs.length }, recommendations: recs };
}

export const runNextBestAction = handler(c.runNextBestAction, async (ctx, p) => {
  if (p.dealId !== undefined && p.ownerId !== undefined) throw badRequest('ownerId', 'give dealId (one deal) or ownerId (their open deals), not both');
  if (p.dealId === undefined && p.ownerId === undefined) throw badRequest('dealId', 'give dealId (one deal) or ownerId (their open deals)');
  if (p.ownerId !== undefined) await requireNamableMember(ctx.q, ctx.orgId, p.ownerId, 'ownerId');
  const which: Which = p.dealId !== undefined ? { dealId: p.dealId } : { ownerId: p.ownerId!, limit: p.limit };
  const out = await runNba(ctx.q, ctx.orgId, ctx.principal.id, ctx.deps.clock.now(), which);
  await ctx.emit('crm.nba.run', out.run.id, {
    runId: out.run.id,
    dealId: out.run.dealId,
    ownerId: out.run.ownerId,
    deals: out.run.deals,
    count: out.run.count,
    playbookIds: [...new Set(out.recommendations.map((r) => r.playbookId).filter((x): x is string => x !== null))].sort(),
  });
  return out;
});
