import type { Queryable } from '../../../db/types.js';
import { addrs, type Addr } from '../model.js';
import { evaluate, prepareFacts, type Facts, type PreparedFacts } from './evaluate.js';
import type { Then, When } from './grammar.js';

/*
 * What a mailbox's rules do to one message: every enabled rule whose `when` holds applies, in order. The first rule
 * that chooses a folder (move or spam) decides it; later choices are left out. Thread acts (assign when no one
 * answers yet, hold agents' replies, triage) and read state for everyone follow. Used at receive (inside its
 * transaction, after threading) and by ruleSave's applyToExisting.
 */

export interface RuleRow {
  rule_id: string;
  mailbox_id: string;
  position: number;
  name: string;
  conditions: When | string;
  actions: Then | string;
  enabled: boolean;
  author_id: string;
  updated_by: string | null;
  enabled_by: string | null;
  created_at: string;
  updated_at: string;
}

export const RULE_COLUMNS = 'rule_id, mailbox_id, position, name, conditions, actions, enabled, author_id, updated_by, enabled_by, created_at, updated_at';

const json = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);
export const whenOf = (r: RuleRow): When => json(r.conditions);
export const thenOf = (r: RuleRow): Then => json(r.actions);

export async function enabledRules(q: Queryable, orgId: string, mailboxId: string): Promise<RuleRow[]> {
  return q.query<RuleRow>(
    `SELECT ${RULE_COLUMNS} FROM email_rules WHERE org_id = $1 AND mailbox_id = $2 AND enabled AND deleted_at IS NULL ORDER BY position, rule_id`,
    [orgId, mailboxId],
  );
}

export interface Decision {
  ruleIds: string[];
  /** A folder path, or 'spam'; null: the rules chose none. */
  folder: { path: string; by: string } | 'spam' | null;
  markRead: boolean;
  assign: string | null;
  hold: { by: string } | null;
  triage: { category?: string; priority?: string } | null;
}

export function decide(rules: readonly RuleRow[], facts: PreparedFacts): Decision {
  const d: Decision = { ruleIds: [], folder: null, markRead: false, assign: null, hold: null, triage: null };
  for (const rule of rules) {
    if (!evaluate(whenOf(rule), facts).matched) continue;
    d.ruleIds.push(rule.rule_id);
    for (const a of thenOf(rule)) {
      if ('move' in a) d.folder ??= { path: a.move, by: rule.author_id };
      else if ('spam' in a) d.folder ??= 'spam';
      else if ('markRead' in a) d.markRead = true;
      else if ('assign' in a) d.assign ??= a.assign;
      else if ('holdReplies' in a) d.hold ??= { by: rule.author_id };
      else if ('triage' in a) d.triage = { ...d.triage, ...a.triage };
    }
  }
  return d;
}

/** The facts of a stored message (applyToExisting, rules {messageId}). */
export interface StoredFacts {
  from_address: string;
  from_domain: string;
  to_addresses: Addr[] | string;
  cc_addresses: Addr[] | string;
  subject: string;
  text: string;
  has_attachments: boolean;
  auth_dmarc: string | null;
  list_id: string | null;
}

export const STORED_FACT_COLUMNS =
  'm.from_address, m.from_domain, m.to_addresses, m.cc_addresses, m.subject, m.text, m.has_attachments, m.auth_dmarc, m.list_id';

export function storedFacts(m: StoredFacts): PreparedFacts {
  const facts: Facts = {
    from: m.from_address,
    fromDomain: m.from_domain,
    to: addrs(m.to_addresses).map((a) => a.address),
    cc: addrs(m.cc_addresses).map((a) => a.address),
    subject: m.subject,
    body: m.text,
    hasAttachment: m.has_attachments,
    dmarc: m.auth_dmarc,
    listId: m.list_id,
  };
  return prepareFacts(facts);
}

/** Mark messages read for every member of the mailbox (a rule's markRead). */
export async function markReadForAll(q: Queryable, orgId: string, mailboxId: string, messageIds: readonly string[], now: string): Promise<void> {
  if (messageIds.length === 0) return;
  await q.query(
    `INSERT INTO email_message_reads (org_id, principal_id, message_id, read_at)
     SELECT $1, mm.principal_id, id, $4 FROM email_mailbox_members mm CROSS JOIN unnest($3::text[]) AS id
      WHERE mm.org_id = $1 AND mm.mailbox_id = $2
     ON CONFLICT DO NOTHING`,
    [orgId, mailboxId, messageIds, now],
  );
}

/**
 * A decision's thread acts; true when the thread changed. An assignee who left the mailbox is skipped. `seenAt`: the
 * newest mail the decision was made on (its sort time).
 */
export async function applyThreadActs(q: Queryable, orgId: string, mailboxId: string, threadId: string, d: Decision, seenAt: string): Promise<boolean> {
  let changed = false;
  if (d.assign) {
    const set = await q.query(
      `UPDATE email_threads t SET assignee_id = $4 WHERE t.org_id = $1 AND t.thread_id = $2 AND t.assignee_id IS NULL
          AND EXISTS (SELECT 1 FROM email_mailbox_members mm WHERE mm.org_id = $1 AND mm.mailbox_id = $3 AND mm.principal_id = $4)
        RETURNING 1 AS one`,
      [orgId, threadId, mailboxId, d.assign],
    );
    changed ||= set.length > 0;
  }
  if (d.hold) {
    const set = await q.query('UPDATE email_threads SET hold = true, hold_by = $3 WHERE org_id = $1 AND thread_id = $2 AND NOT hold RETURNING 1 AS one', [
      orgId,
      threadId,
      d.hold.by,
    ]);
    changed ||= set.length > 0;
  }
  if (d.triage) {
    // The rule's triage stands: the thread counts as triaged up to the mail decided on (triaged_at), which the AI
    // passes (triageNow, the background pass) take only when newer mail came; even when the values were already these.
    const [row] = await q.query<{ changed: boolean }>(
      `WITH prev AS (SELECT triage_category, triage_priority FROM email_threads WHERE org_id = $1 AND thread_id = $2 FOR UPDATE)
       UPDATE email_threads t SET triage_category = coalesce($3, t.triage_category), triage_priority = coalesce($4, t.triage_priority),
              triaged_at = greatest(t.triaged_at, $5::timestamptz)
         FROM prev WHERE t.org_id = $1 AND t.thread_id = $2
       RETURNING (prev.triage_category IS DISTINCT FROM t.triage_category OR prev.triage_priority IS DISTINCT FROM t.triage_priority) AS changed`,
      [orgId, threadId, d.triage.category ?? null, d.triage.priority ?? null, seenAt],
    );
    changed ||= row?.changed === true;
  }
  return changed;
}
