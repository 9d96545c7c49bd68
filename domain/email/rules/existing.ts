import type { Queryable } from '../../../db/types.js';
import { ensureFolder, folderByRole, refreshThreads } from '../folders.js';
import { applyThreadActs, decide, markReadForAll, STORED_FACT_COLUMNS, storedFacts, type RuleRow, type StoredFacts } from './apply.js';

/*
 * ruleSave {applyToExisting}: the rule over mail already in its mailbox, as if it had just arrived. Only received
 * mail outside Spam and Trash is looked at (a person put it there; a rule does not take it out), the newest 5000 at
 * most, in the call's transaction.
 */

export const EXISTING_SCAN = 5000;

export interface Existing {
  scanned: number;
  matched: number;
  moved: number;
  threads: number;
  read: number;
}

export async function applyToExisting(q: Queryable, orgId: string, rule: RuleRow, now: string): Promise<Existing> {
  const mailboxId = rule.mailbox_id;
  const [spam, trash] = [await folderByRole(q, orgId, mailboxId, 'spam'), await folderByRole(q, orgId, mailboxId, 'trash')];
  const rows = await q.query<StoredFacts & { message_id: string; thread_id: string; folder_id: string; sort_at: string | Date }>(
    `SELECT m.message_id, m.thread_id, m.folder_id, m.sort_at, ${STORED_FACT_COLUMNS} FROM email_messages m
      WHERE m.org_id = $1 AND m.mailbox_id = $2 AND m.state = 'received' AND m.folder_id <> ALL($3::text[])
      ORDER BY m.sort_at DESC, m.message_id LIMIT ${EXISTING_SCAN}`,
    [orgId, mailboxId, [spam.folder_id, trash.folder_id]],
  );
  const matched = rows.filter((r) => decide([rule], storedFacts(r)).ruleIds.length > 0);
  const out: Existing = { scanned: rows.length, matched: matched.length, moved: 0, threads: 0, read: 0 };
  if (matched.length === 0) return out;
  const d = decide([rule], storedFacts(matched[0]));
  if (d.folder !== null) {
    const target = d.folder === 'spam' ? spam : (await ensureFolder(q, orgId, mailboxId, d.folder.path, d.folder.by, now)).folder;
    const moved = await q.query<{ thread_id: string }>(
      `UPDATE email_messages SET folder_id = $3, updated_at = $4 WHERE org_id = $1 AND message_id = ANY($2::text[]) AND folder_id <> $3
       RETURNING thread_id`,
      [orgId, matched.map((r) => r.message_id), target.folder_id, now],
    );
    out.moved = moved.length;
    await refreshThreads(
      q,
      orgId,
      moved.map((r) => r.thread_id),
    );
  }
  if (d.markRead) {
    const before = await readCount(
      q,
      orgId,
      matched.map((r) => r.message_id),
    );
    await markReadForAll(
      q,
      orgId,
      mailboxId,
      matched.map((r) => r.message_id),
      now,
    );
    out.read =
      (await readCount(
        q,
        orgId,
        matched.map((r) => r.message_id),
      )) - before;
  }
  // Each thread's newest matched mail: what its acts were decided on (rows come newest first).
  const newest = new Map<string, string>();
  for (const r of matched) if (!newest.has(r.thread_id)) newest.set(r.thread_id, new Date(r.sort_at).toISOString());
  for (const [threadId, seenAt] of [...newest].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (await applyThreadActs(q, orgId, mailboxId, threadId, d, seenAt)) out.threads += 1;
  }
  return out;
}

async function readCount(q: Queryable, orgId: string, ids: readonly string[]): Promise<number> {
  const [row] = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM email_message_reads WHERE org_id = $1 AND message_id = ANY($2::text[])', [
    orgId,
    ids,
  ]);
  return Number(row?.n ?? 0);
}
