import { ApiError, notFound } from '../../protocol/errors.js';
import type { Queryable } from '../../db/types.js';
import { MESSAGE_COLUMNS, THREAD_COLUMNS, type MessageRow, type ThreadRow } from './model.js';

/*
 * Who may see and do what: a member of a mailbox (owner, reviewer, member or agent) reads all of it; anyone else,
 * whatever their scopes (an admin too), finds neither the mailbox nor its threads and messages (NOT_FOUND, as for
 * another org's). A role that may not do an act is FORBIDDEN_SCOPE naming the role.
 */

export type MailboxRole = 'owner' | 'reviewer' | 'member' | 'agent';

export interface MailboxRow {
  mailbox_id: string;
  address: string;
  display_name: string;
  policy: 'review_all' | 'review_external' | 'review_new_contacts';
  undo_seconds: number;
  hold: boolean;
}

/** The mailboxes `principalId` is a member of, as SQL selecting `mailbox_id` ($org and $principal placeholders). */
export const MY_MAILBOXES_SQL = (org: string, principal: string) =>
  `(SELECT mailbox_id FROM email_mailbox_members WHERE org_id = ${org} AND principal_id = ${principal})`;

/** The caller's role in a mailbox, or null. */
export async function roleIn(q: Queryable, orgId: string, mailboxId: string, principalId: string): Promise<MailboxRole | null> {
  const [row] = await q.query<{ role: MailboxRole }>('SELECT role FROM email_mailbox_members WHERE org_id = $1 AND mailbox_id = $2 AND principal_id = $3', [
    orgId,
    mailboxId,
    principalId,
  ]);
  return row?.role ?? null;
}

/** The mailbox and the caller's role in it; NOT_FOUND unless a member. `lock`: FOR UPDATE on the mailbox row. */
export async function mailboxAccess(
  q: Queryable,
  orgId: string,
  mailboxId: string,
  principalId: string,
  opts: { lock?: boolean } = {},
): Promise<{ mailbox: MailboxRow; role: MailboxRole }> {
  const [row] = await q.query<MailboxRow & { role: MailboxRole }>(
    `SELECT b.mailbox_id, b.address, b.display_name, b.policy, b.undo_seconds, b.hold, mm.role
       FROM email_mailboxes b JOIN email_mailbox_members mm ON mm.org_id = b.org_id AND mm.mailbox_id = b.mailbox_id AND mm.principal_id = $3
      WHERE b.org_id = $1 AND b.mailbox_id = $2${opts.lock ? ' FOR UPDATE OF b' : ''}`,
    [orgId, mailboxId, principalId],
  );
  if (!row) throw notFound(`mailbox ${mailboxId}`);
  const { role, ...mailbox } = row;
  return { mailbox, role };
}

/**
 * A thread of a mailbox the caller is in, and the caller's role; NOT_FOUND otherwise. `lock`: FOR UPDATE, taken on
 * the thread alone before the read: locked in the join, a thread moved to another mailbox while this waited was
 * checked against the old mailbox's member row, and a member of both got NOT_FOUND.
 */
export async function threadAccess(
  q: Queryable,
  orgId: string,
  threadId: string,
  principalId: string,
  opts: { lock?: boolean } = {},
): Promise<{ thread: ThreadRow; role: MailboxRole }> {
  if (opts.lock) await q.query('SELECT 1 FROM email_threads WHERE org_id = $1 AND thread_id = $2 FOR UPDATE', [orgId, threadId]);
  const [row] = await q.query<ThreadRow & { role: MailboxRole }>(
    `SELECT ${THREAD_COLUMNS}, mm.role
       FROM email_threads t JOIN email_mailbox_members mm ON mm.org_id = t.org_id AND mm.mailbox_id = t.mailbox_id AND mm.principal_id = $3
      WHERE t.org_id = $1 AND t.thread_id = $2`,
    [orgId, threadId, principalId],
  );
  if (!row) throw notFound(`thread ${threadId}`);
  const { role, ...thread } = row;
  return { thread, role };
}

/** A message of a mailbox the caller is in, and the caller's role; NOT_FOUND otherwise. `lock`: FOR UPDATE, as threadAccess. */
export async function messageAccess(
  q: Queryable,
  orgId: string,
  messageId: string,
  principalId: string,
  opts: { lock?: boolean } = {},
): Promise<{ message: MessageRow; role: MailboxRole }> {
  if (opts.lock) await q.query('SELECT 1 FROM email_messages WHERE org_id = $1 AND message_id = $2 FOR UPDATE', [orgId, messageId]);
  const [row] = await q.query<MessageRow & { role: MailboxRole }>(
    `SELECT ${MESSAGE_COLUMNS}, mm.role
       FROM email_messages m JOIN email_mailbox_members mm ON mm.org_id = m.org_id AND mm.mailbox_id = m.mailbox_id AND mm.principal_id = $3
      WHERE m.org_id = $1 AND m.message_id = $2`,
    [orgId, messageId, principalId],
  );
  if (!row) throw notFound(`message ${messageId}`);
  const { role, ...message } = row;
  return { message, role };
}

/** FORBIDDEN_SCOPE naming the role unless it is one of `allowed`. */
export function requireRole(role: MailboxRole, allowed: readonly MailboxRole[], act: string): void {
  if (allowed.includes(role)) return;
  throw new ApiError('FORBIDDEN_SCOPE', `missing role ${allowed.join(' or ')} in this mailbox (yours is ${role}), needed to ${act}`);
}

/**
 * The mailboxes, threads or messages of `ids` (eml_/thr_) as message rows of the caller's mailboxes, each id
 * NOT_FOUND unless readable; a thread stands for its live messages (drafts and discarded left out).
 */
export async function messagesOf(
  q: Queryable,
  orgId: string,
  ids: readonly string[],
  principalId: string,
  opts: { lock?: boolean } = {},
): Promise<{ rows: MessageRow[]; roles: Map<string, MailboxRole> }> {
  const unique = [...new Set(ids)];
  const read = () =>
    q.query<MessageRow & { role: MailboxRole; via: string }>(
      `SELECT ${MESSAGE_COLUMNS}, mm.role, m.message_id AS via
       FROM email_messages m JOIN email_mailbox_members mm ON mm.org_id = m.org_id AND mm.mailbox_id = m.mailbox_id AND mm.principal_id = $3
      WHERE m.org_id = $1 AND m.message_id = ANY($2::text[])
     UNION ALL
     SELECT ${MESSAGE_COLUMNS}, mm.role, m.thread_id AS via
       FROM email_messages m JOIN email_mailbox_members mm ON mm.org_id = m.org_id AND mm.mailbox_id = m.mailbox_id AND mm.principal_id = $3
      WHERE m.org_id = $1 AND m.thread_id = ANY($2::text[]) AND m.state NOT IN ('draft', 'discarded')
      ORDER BY message_id`,
      [orgId, unique, principalId],
    );
  const rows = opts.lock ? await lockRows(q, orgId, await read(), read) : await read();
  const found = new Set(rows.map((r) => r.via));
  const threads = await (async () => {
    // A thread with only drafts has no rows above yet exists: it is found, with nothing to act on.
    const missing = unique.filter((id) => id.startsWith('thr_') && !found.has(id));
    if (missing.length === 0) return new Set<string>();
    const live = await q.query<{ thread_id: string }>(
      `SELECT t.thread_id FROM email_threads t JOIN email_mailbox_members mm ON mm.org_id = t.org_id AND mm.mailbox_id = t.mailbox_id AND mm.principal_id = $3
        WHERE t.org_id = $1 AND t.thread_id = ANY($2::text[])`,
      [orgId, missing, principalId],
    );
    return new Set(live.map((r) => r.thread_id));
  })();
  const absent = unique.find((id) => !found.has(id) && !threads.has(id));
  if (absent) throw notFound(`${absent.startsWith('thr_') ? 'thread' : 'message'} ${absent}`);
  const roles = new Map<string, MailboxRole>();
  const byId = new Map<string, MessageRow>();
  for (const r of rows) {
    const { role, via, ...row } = r;
    roles.set(row.mailbox_id, role);
    byId.set(row.message_id, row);
  }
  return { rows: [...byId.values()], roles };
}

/**
 * Lock the messages read (id order; NO KEY UPDATE: their keys stay, and reads or reactions being added to them need
 * not wait), then read them again under the lock: a call that changed them meanwhile (moveMailbox) has committed, and
 * what was read before it broke a foreign key. A message that joined a thread between the reads is locked on the
 * next turn; one still arriving after three turns is left out, as if it came after the call.
 */
async function lockRows<R extends { message_id: string }>(q: Queryable, orgId: string, first: R[], read: () => Promise<R[]>): Promise<R[]> {
  const locked = new Set<string>();
  let rows = first;
  for (let turn = 0; turn < 3; turn++) {
    const ids = [...new Set(rows.map((r) => r.message_id))].filter((id) => !locked.has(id)).sort();
    if (ids.length === 0) break;
    await q.query('SELECT 1 FROM email_messages WHERE org_id = $1 AND message_id = ANY($2::text[]) ORDER BY message_id FOR NO KEY UPDATE', [orgId, ids]);
    for (const id of ids) locked.add(id);
    rows = await read();
  }
  return rows.filter((r) => locked.has(r.message_id));
}
