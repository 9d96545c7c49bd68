import type { z } from 'zod';
import { badRequest, conflict, notFound } from '../../../protocol/errors.js';
import { canonicalJson, sha256Hex } from '../../../protocol/hashing.js';
import { emailRules as c, MAX_RULES, type Rule } from '../../../protocol/methods/email/rules.js';
import { one, type Queryable } from '../../../db/types.js';
import { handler, type HandlerCtx } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { mailboxAccess, messageAccess, requireRole, roleIn, type MailboxRole } from '../access.js';
import { RULE_COLUMNS, STORED_FACT_COLUMNS, storedFacts, thenOf, whenOf, type RuleRow, type StoredFacts } from './apply.js';
import { applyToExisting } from './existing.js';
import { evaluate } from './evaluate.js';
import { actionKind, checkThen, checkWhen, conditionCount, type Then, type When } from './grammar.js';
import { ruleWords } from './words.js';

/*
 * ruleSave, ruleSetEnabled and rules. Who may do what: every member may write rules; a person's rule starts
 * enabled, an agent's starts disabled, and an agent's change to its own rule disables it again, so a rule a person
 * enabled never runs in a form the person did not see. Enabling is a person's act; an agent may disable only its
 * own rules, may not change a person's, and may not write one that sends mail to Spam (agents do not hide mail).
 * Events carry ids, counts, action kinds and a hash of the rule: never its name or values.
 */

const HUMAN: readonly MailboxRole[] = ['owner', 'reviewer', 'member'];

type RuleView = z.infer<typeof Rule>;

export function ruleView(r: RuleRow): RuleView {
  const when = whenOf(r);
  const then = thenOf(r);
  return {
    id: r.rule_id,
    mailboxId: r.mailbox_id,
    name: r.name,
    position: Number(r.position),
    enabled: r.enabled,
    when,
    then,
    description: ruleWords(when, then),
    authorId: r.author_id,
    updatedBy: r.updated_by ?? r.author_id,
    enabledBy: r.enabled_by,
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
  };
}

/** A rule of a mailbox the caller is in, and the caller's role; NOT_FOUND otherwise. */
async function ruleAccess(q: Queryable, orgId: string, ruleId: string, me: string): Promise<{ rule: RuleRow; role: MailboxRole }> {
  const [rule] = await q.query<RuleRow>(`SELECT ${RULE_COLUMNS} FROM email_rules WHERE org_id = $1 AND rule_id = $2 AND deleted_at IS NULL FOR UPDATE`, [
    orgId,
    ruleId,
  ]);
  const role = rule ? await roleIn(q, orgId, rule.mailbox_id, me) : null;
  if (!rule || !role) throw notFound(`rule ${ruleId}`);
  return { rule, role };
}

const isAgentRule = (r: RuleRow) => r.author_id.startsWith('agt_');

async function checkAssignees(q: Queryable, orgId: string, mailboxId: string, then: Then): Promise<void> {
  for (const [i, a] of then.entries()) {
    if ('assign' in a && (await roleIn(q, orgId, mailboxId, a.assign)) === null) {
      throw badRequest(`then.${i}.assign`, `${a.assign} is not a member of mailbox ${mailboxId}: assign to one of its members (email.mailboxes lists them)`);
    }
  }
}

export const ruleSave = handler(c.ruleSave, async (ctx, p) => {
  const me = ctx.principal.id;
  const now = ctx.deps.clock.now().toISOString();
  let before: RuleRow | undefined;
  let mailboxId: string;
  let role: MailboxRole;
  if (p.ruleId !== undefined) {
    ({ rule: before, role } = await ruleAccess(ctx.q, ctx.orgId, p.ruleId, me));
    if (p.mailboxId !== undefined && p.mailboxId !== before.mailbox_id) throw badRequest('mailboxId', `rule ${p.ruleId} is of mailbox ${before.mailbox_id}`);
    mailboxId = before.mailbox_id;
    if (!isAgentRule(before)) requireRole(role, HUMAN, 'change a rule a person wrote');
  } else {
    if (p.mailboxId === undefined) throw badRequest('mailboxId', 'required to create a rule (or give ruleId to change one)');
    if (p.when === undefined) throw badRequest('when', 'required to create a rule');
    if (p.then === undefined) throw badRequest('then', 'required to create a rule');
    ({ role } = await mailboxAccess(ctx.q, ctx.orgId, p.mailboxId, me, { lock: true }));
    mailboxId = p.mailboxId;
  }
  const when: When = p.when !== undefined ? checkWhen(p.when) : whenOf(before!);
  const then: Then = p.then !== undefined ? checkThen(p.then) : thenOf(before!);
  const name = p.name !== undefined ? p.name.trim() : (before?.name ?? '');
  if (then.some((a) => 'spam' in a)) requireRole(role, HUMAN, 'write a rule that puts mail in Spam (agents may not hide mail)');
  await checkAssignees(ctx.q, ctx.orgId, mailboxId, then);

  const agent = role === 'agent';
  const same = before !== undefined && canonicalJson({ name, when, then }) === canonicalJson({ name: before.name, when: whenOf(before), then: thenOf(before) });
  let row: RuleRow;
  if (same) {
    row = before!;
  } else if (before) {
    // An agent's change puts its rule back to disabled: what a person enabled is what runs.
    const enabled = agent ? false : before.enabled;
    row = one(
      await ctx.q.query<RuleRow>(
        `UPDATE email_rules SET name = $3, conditions = $4::jsonb, actions = $5::jsonb, enabled = $6, updated_by = $7, updated_at = $8,
                enabled_by = CASE WHEN $6 THEN enabled_by ELSE NULL END, enabled_at = CASE WHEN $6 THEN enabled_at ELSE NULL END
          WHERE org_id = $1 AND rule_id = $2 RETURNING ${RULE_COLUMNS}`,
        [ctx.orgId, before.rule_id, name, JSON.stringify(when), JSON.stringify(then), enabled, me, now],
      ),
    );
  } else {
    const count = one(
      await ctx.q.query<{ n: number; last: number | null }>(
        'SELECT count(*)::int AS n, max(position) AS last FROM email_rules WHERE org_id = $1 AND mailbox_id = $2 AND deleted_at IS NULL',
        [ctx.orgId, mailboxId],
      ),
    );
    if (Number(count.n) >= MAX_RULES) throw conflict(`mailbox ${mailboxId} has ${MAX_RULES} rules, the most it keeps: change or disable one of them instead`);
    row = one(
      await ctx.q.query<RuleRow>(
        `INSERT INTO email_rules (org_id, rule_id, mailbox_id, position, name, conditions, actions, enabled, author_id, updated_by, enabled_by, enabled_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8, $9, $9, $10, $11, $12, $12) RETURNING ${RULE_COLUMNS}`,
        [
          ctx.orgId,
          newId('rul'),
          mailboxId,
          count.last === null ? 1 : Number(count.last) + 1,
          name,
          JSON.stringify(when),
          JSON.stringify(then),
          !agent,
          me,
          agent ? null : me,
          agent ? null : now,
          now,
        ],
      ),
    );
  }
  const existing = p.applyToExisting && row.enabled ? await applyToExisting(ctx.q, ctx.orgId, row, now) : null;
  const changed = !same || (existing !== null && existing.moved + existing.threads + existing.read > 0);
  await ctx.emit('email.rule.save', row.rule_id, {
    mailboxId,
    ruleId: row.rule_id,
    created: before === undefined,
    enabled: row.enabled,
    conditions: conditionCount(when),
    actions: then.map(actionKind),
    ruleSha256: sha256Hex(canonicalJson({ when, then })),
    ...(existing ? { existing: { scanned: existing.scanned, matched: existing.matched, moved: existing.moved, threads: existing.threads } } : {}),
    ...(changed ? {} : { noop: true }),
  });
  const { read: _read, ...shown } = existing ?? { read: 0 };
  return { rule: ruleView(row), existing: existing ? shown : null, changed };
});

export const ruleSetEnabled = handler(c.ruleSetEnabled, async (ctx, p) => {
  const me = ctx.principal.id;
  const { rule, role } = await ruleAccess(ctx.q, ctx.orgId, p.ruleId, me);
  if (p.enabled) requireRole(role, HUMAN, "enable a rule (enabling is a person's act: ask a person of the mailbox to enable it)");
  else if (rule.author_id !== me) requireRole(role, HUMAN, 'disable a rule you did not write');
  const changed = rule.enabled !== p.enabled;
  let row = rule;
  if (changed) {
    const now = ctx.deps.clock.now().toISOString();
    row = one(
      await ctx.q.query<RuleRow>(
        `UPDATE email_rules SET enabled = $3, enabled_by = CASE WHEN $3 THEN $4 ELSE enabled_by END, enabled_at = CASE WHEN $3 THEN $5::timestamptz ELSE enabled_at END,
                updated_at = $5 WHERE org_id = $1 AND rule_id = $2 RETURNING ${RULE_COLUMNS}`,
        [ctx.orgId, p.ruleId, p.enabled, me, now],
      ),
    );
  }
  await ctx.emit('email.rule.set_state', p.ruleId, {
    mailboxId: rule.mailbox_id,
    ruleId: p.ruleId,
    enabled: p.enabled,
    agentRule: isAgentRule(rule),
    ...(changed ? {} : { noop: true }),
  });
  return { rule: ruleView(row), changed };
});

export const rules = handler(c.rules, async (ctx: HandlerCtx, p) => {
  const me = ctx.principal.id;
  await mailboxAccess(ctx.q, ctx.orgId, p.mailboxId, me);
  const rows = await ctx.q.query<RuleRow>(
    `SELECT ${RULE_COLUMNS} FROM email_rules WHERE org_id = $1 AND mailbox_id = $2 AND deleted_at IS NULL ORDER BY position, rule_id`,
    [ctx.orgId, p.mailboxId],
  );
  if (p.messageId === undefined) return { rules: rows.map(ruleView) };
  const { message } = await messageAccess(ctx.q, ctx.orgId, p.messageId, me);
  if (message.mailbox_id !== p.mailboxId) throw badRequest('messageId', `message ${p.messageId} is in another mailbox than ${p.mailboxId}`);
  const stored = one(
    await ctx.q.query<StoredFacts>(`SELECT ${STORED_FACT_COLUMNS} FROM email_messages m WHERE m.org_id = $1 AND m.message_id = $2`, [ctx.orgId, p.messageId]),
  );
  const facts = storedFacts(stored);
  return { rules: rows.map((r) => ({ ...ruleView(r), match: evaluate(whenOf(r), facts) })) };
});
