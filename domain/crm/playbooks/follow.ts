import { badRequest, conflict, notFound } from '../../../protocol/errors.js';
import { crm as c, type RiskFlag } from '../../../protocol/methods/crm/index.js';
import type { Queryable } from '../../../db/types.js';
import { addIntakeTasks, getTask } from '../../board/index.js';
import { handler } from '../../core/handler.js';
import { requireNamableMember } from '../../people/index.js';
import { loadDeal, requireNotDeleted } from '../model.js';
import { actionText, type Definition } from './compile.js';
import { RISK_RULES } from './nba.js';

/*
 * taskFollowThrough: a board task for a deal, through the board's public face (addIntakeTasks: in triage, no board
 * event), so the crm event is the call's one event. Linked in crm_deal_tasks (getDeal lists it) and on the
 * recommendation it follows; a recommendation followed already answers its task (created: false).
 */

const DAY_MS = 86_400_000;

interface RecRow {
  recommendation_id: string;
  deal_id: string;
  playbook_id: string | null;
  playbook_version: number | null;
  rule_id: string;
  task_id: string | null;
  as_of: string | Date;
}

/** What the recommendation said, and its due date (a task rule's dueInDays after the run). */
async function recommended(q: Queryable, orgId: string, r: RecRow): Promise<{ text: string; dueDate: string | null }> {
  if (r.playbook_id === null) return { text: RISK_RULES[r.rule_id.slice('risk.'.length) as RiskFlag]?.text ?? r.rule_id, dueDate: null };
  const [v] = await q.query<{ definition: Definition }>(
    `SELECT definition FROM crm_playbook_versions WHERE org_id = $1 AND playbook_id = $2 AND version = $3`,
    [orgId, r.playbook_id, r.playbook_version],
  );
  const rule = v?.definition.rules.find((x) => x.id === r.rule_id);
  if (!rule) return { text: r.rule_id, dueDate: null };
  const due = rule.then.action === 'task' ? new Date(new Date(r.as_of).getTime() + rule.then.dueInDays * DAY_MS).toISOString().slice(0, 10) : null;
  return { text: actionText(rule.then), dueDate: due };
}

export const taskFollowThrough = handler(c.taskFollowThrough, async (ctx, p) => {
  if (p.recommendationId === undefined && p.title === undefined) throw badRequest('title', 'give title, or recommendationId to follow a recommendation');
  const deal = await loadDeal(ctx.q, ctx.orgId, p.dealId, true);
  requireNotDeleted(deal);
  let rec: RecRow | undefined;
  if (p.recommendationId !== undefined) {
    [rec] = await ctx.q.query<RecRow>(
      `SELECT r.recommendation_id, r.deal_id, r.playbook_id, r.playbook_version, r.rule_id, r.task_id, n.as_of
         FROM crm_nba_recommendations r JOIN crm_nba_runs n ON n.org_id = r.org_id AND n.run_id = r.run_id
        WHERE r.org_id = $1 AND r.recommendation_id = $2 FOR UPDATE OF r`,
      [ctx.orgId, p.recommendationId],
    );
    if (!rec) throw notFound(`recommendation ${p.recommendationId}`);
    if (rec.deal_id !== deal.deal_id) throw badRequest('recommendationId', `recommends on deal ${rec.deal_id}, not ${deal.deal_id}`);
    if (rec.task_id !== null) {
      const task = await getTask(ctx.q, ctx.orgId, rec.task_id);
      await ctx.emit('crm.task.create', deal.deal_id, { dealId: deal.deal_id, taskId: rec.task_id, recommendationId: rec.recommendation_id, noop: true });
      return {
        taskId: rec.task_id,
        dealId: deal.deal_id,
        recommendationId: rec.recommendation_id,
        title: task.title,
        dueDate: /due (\d{4}-\d{2}-\d{2})/.exec(task.description)?.[1] ?? null,
        assignee: task.assignee,
        created: false,
      };
    }
  }
  if (deal.status !== 'open') throw conflict(`deal ${deal.deal_id} is ${deal.status}; reopen it (crm.moveStage) before adding follow-through tasks`);
  if (p.assignee !== undefined) await requireNamableMember(ctx.q, ctx.orgId, p.assignee, 'assignee');
  const said = rec ? await recommended(ctx.q, ctx.orgId, rec) : null;
  const title = (p.title ?? said?.text ?? '').trim().slice(0, 200) || 'Follow through';
  const dueDate = p.dueDate ?? said?.dueDate ?? null;
  const assignee = p.assignee ?? deal.delegate_id ?? deal.owner_id;
  const description = [
    `Follow-through on crm deal ${deal.deal_id}${dueDate ? `, due ${dueDate}` : ''}.`,
    rec ? `Recommendation ${rec.recommendation_id} (rule ${rec.rule_id}): ${said?.text ?? ''}` : '',
  ]
    .filter(Boolean)
    .join('\n');
  const [taskId] = await addIntakeTasks(ctx.q, ctx.orgId, ctx.principal.id, [{ title, description, assignee }]);
  const now = ctx.deps.clock.now().toISOString();
  await ctx.q.query(`INSERT INTO crm_deal_tasks (org_id, deal_id, task_id, recommendation_id, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6)`, [
    ctx.orgId,
    deal.deal_id,
    taskId,
    rec?.recommendation_id ?? null,
    ctx.principal.id,
    now,
  ]);
  if (rec)
    await ctx.q.query(`UPDATE crm_nba_recommendations SET task_id = $3 WHERE org_id = $1 AND recommendation_id = $2`, [
      ctx.orgId,
      rec.recommendation_id,
      taskId,
    ]);
  await ctx.emit('crm.task.create', deal.deal_id, { dealId: deal.deal_id, taskId, recommendationId: rec?.recommendation_id ?? null, assignee });
  return { taskId, dealId: deal.deal_id, recommendationId: rec?.recommendation_id ?? null, title, dueDate, assignee, created: true };
});
