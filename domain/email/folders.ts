import type { z } from 'zod';
import { badRequest, conflict } from '../../protocol/errors.js';
import type { Folder } from '../../protocol/methods/email/shapes.js';
import { isSqlError, one, SQLSTATE, type Queryable } from '../../db/types.js';
import { newId } from '../core/ids.js';

/*
 * Folders: one per message (as Gmail's one-folder-per-message model in the design, no labels). Each mailbox has its
 * six system folders, named after their roles; other folders are paths (`Clients/Acme`) with no parent rows: a
 * rename or delete of `Clients` takes `Clients/…` with it. email_thread_folders says which folders a thread has
 * live mail in (its listing walks that table's index); every write that moves, adds or drops a message refreshes
 * the rows of its threads.
 */

export type FolderRole = 'inbox' | 'drafts' | 'sent' | 'archive' | 'spam' | 'trash' | 'none';

export const SYSTEM_FOLDERS: readonly (readonly [FolderRole, string])[] = [
  ['inbox', 'Inbox'],
  ['drafts', 'Drafts'],
  ['sent', 'Sent'],
  ['archive', 'Archive'],
  ['spam', 'Spam'],
  ['trash', 'Trash'],
];

const ROLE_ORDER = `CASE f.role WHEN 'inbox' THEN 0 WHEN 'drafts' THEN 1 WHEN 'sent' THEN 2 WHEN 'archive' THEN 3 WHEN 'spam' THEN 4 WHEN 'trash' THEN 5 ELSE 6 END`;

export interface FolderRow {
  folder_id: string;
  mailbox_id: string;
  path: string;
  role: FolderRole;
}

/** Create a mailbox's system folders (operator, at mailbox creation). */
export async function createSystemFolders(q: Queryable, orgId: string, mailboxId: string, by: string, now: string): Promise<void> {
  for (const [role, path] of SYSTEM_FOLDERS) {
    await q.query(`INSERT INTO email_folders (org_id, folder_id, mailbox_id, path, role, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
      orgId,
      newId('fld'),
      mailboxId,
      path,
      role,
      by,
      now,
    ]);
  }
}

/** A path as stored: segments trimmed, joined by /; BAD_REQUEST naming `field` when a segment is empty. */
export function cleanPath(path: string, field: string): string {
  const segments = path.split('/').map((s) => s.replace(/\s+/g, ' ').trim());
  if (segments.some((s) => s === '')) throw badRequest(field, 'segments joined by / and none empty, e.g. Clients/Acme');
  if (segments.some((s) => s.length > 60)) throw badRequest(field, 'each segment at most 60 characters');
  return segments.join('/');
}

export async function folderByRole(q: Queryable, orgId: string, mailboxId: string, role: Exclude<FolderRole, 'none'>): Promise<FolderRow> {
  return one(
    await q.query<FolderRow>('SELECT folder_id, mailbox_id, path, role FROM email_folders WHERE org_id = $1 AND mailbox_id = $2 AND role = $3', [
      orgId,
      mailboxId,
      role,
    ]),
    `the ${role} folder of ${mailboxId}`,
  );
}

/** A folder of the org (any mailbox), or undefined. */
export async function folderById(q: Queryable, orgId: string, folderId: string, opts: { lock?: boolean } = {}): Promise<FolderRow | undefined> {
  const [row] = await q.query<FolderRow>(
    `SELECT folder_id, mailbox_id, path, role FROM email_folders WHERE org_id = $1 AND folder_id = $2${opts.lock ? ' FOR UPDATE' : ''}`,
    [orgId, folderId],
  );
  return row;
}

/** The folder at `path` in the mailbox, made when there is none. */
export async function ensureFolder(
  q: Queryable,
  orgId: string,
  mailboxId: string,
  path: string,
  by: string,
  now: string,
): Promise<{ folder: FolderRow; created: boolean }> {
  const find = async () =>
    (
      await q.query<FolderRow>(
        'SELECT folder_id, mailbox_id, path, role FROM email_folders WHERE org_id = $1 AND mailbox_id = $2 AND lower(path) = lower($3)',
        [orgId, mailboxId, path],
      )
    )[0];
  const existing = await find();
  if (existing) return { folder: existing, created: false };
  const folderId = newId('fld');
  const made = await q.query<FolderRow>(
    `INSERT INTO email_folders (org_id, folder_id, mailbox_id, path, role, created_by, created_at) VALUES ($1, $2, $3, $4, 'none', $5, $6)
     ON CONFLICT DO NOTHING RETURNING folder_id, mailbox_id, path, role`,
    [orgId, folderId, mailboxId, path, by, now],
  );
  if (made[0]) return { folder: made[0], created: true };
  // Another call made it meanwhile.
  const again = await find();
  if (!again) throw new Error(`folder ${path} of ${mailboxId} neither made nor found`);
  return { folder: again, created: false };
}

/** Rename the folder and every path under it; CONFLICT when a new path is taken. */
export async function renamePaths(q: Queryable, orgId: string, folder: FolderRow, path: string): Promise<void> {
  try {
    await q.query(
      `UPDATE email_folders SET path = $4 || substr(path, length($3) + 1)
        WHERE org_id = $1 AND mailbox_id = $2 AND role = 'none' AND (lower(path) = lower($3) OR left(lower(path), length($3) + 1) = lower($3) || '/')`,
      [orgId, folder.mailbox_id, folder.path, path],
    );
  } catch (err) {
    if (isSqlError(err, SQLSTATE.uniqueViolation))
      throw conflict(`a folder of this mailbox already has the path you asked for (or one under it would): pick another path`);
    throw err;
  }
}

/**
 * Recompute which folders these threads have live mail in, and their counts and last activity. The threads' rows
 * are locked first (in id order): two transactions recomputing one thread (a delivery job and a call on the same
 * thread) then run one after the other, the second deleting what the first inserted. Without it the second's
 * DELETE did not see the first's new rows and its INSERT broke the unique key: the loser failed (a delivery job
 * retried 30 s later). NO KEY UPDATE, as the UPDATE below takes anyway: a message inserted into the thread holds
 * a key-share lock on it (its foreign key), and two such callers asking for FOR UPDATE deadlocked.
 */
export async function refreshThreads(q: Queryable, orgId: string, threadIds: readonly string[]): Promise<void> {
  const ids = [...new Set(threadIds)].sort();
  if (ids.length === 0) return;
  await q.query('SELECT 1 FROM email_threads WHERE org_id = $1 AND thread_id = ANY($2::text[]) ORDER BY thread_id FOR NO KEY UPDATE', [orgId, ids]);
  await q.query('DELETE FROM email_thread_folders WHERE org_id = $1 AND thread_id = ANY($2::text[])', [orgId, ids]);
  await q.query(
    `INSERT INTO email_thread_folders (org_id, mailbox_id, folder_id, thread_id, last_message_at, message_count)
     SELECT org_id, mailbox_id, folder_id, thread_id, max(sort_at), count(*)::int FROM email_messages
      WHERE org_id = $1 AND thread_id = ANY($2::text[]) AND state <> 'discarded'
      GROUP BY org_id, mailbox_id, folder_id, thread_id`,
    [orgId, ids],
  );
  await q.query(
    `UPDATE email_threads t SET message_count = s.n, last_message_at = coalesce(s.last, t.last_message_at)
       FROM (SELECT id, (SELECT count(*)::int FROM email_messages m WHERE m.org_id = $1 AND m.thread_id = id AND m.state <> 'discarded') AS n,
                    (SELECT max(sort_at) FROM email_messages m WHERE m.org_id = $1 AND m.thread_id = id AND m.state <> 'discarded') AS last
               FROM unnest($2::text[]) AS id) s
      WHERE t.org_id = $1 AND t.thread_id = s.id`,
    [orgId, ids],
  );
}

/** Folders of these mailboxes with their thread counts and the caller's unread counts, system folders first. */
export async function folderViews(
  q: Queryable,
  orgId: string,
  mailboxIds: readonly string[],
  principalId: string,
): Promise<Map<string, z.infer<typeof Folder>[]>> {
  const rows = await q.query<FolderRow & { threads: number; unread: number }>(
    `SELECT f.folder_id, f.mailbox_id, f.path, f.role,
            (SELECT count(*)::int FROM email_thread_folders tf WHERE tf.org_id = f.org_id AND tf.folder_id = f.folder_id) AS threads,
            (SELECT count(*)::int FROM email_messages m
              WHERE m.org_id = f.org_id AND m.mailbox_id = f.mailbox_id AND m.folder_id = f.folder_id AND m.state = 'received'
                AND NOT EXISTS (SELECT 1 FROM email_message_reads r WHERE r.org_id = m.org_id AND r.principal_id = $3 AND r.message_id = m.message_id)) AS unread
       FROM email_folders f WHERE f.org_id = $1 AND f.mailbox_id = ANY($2::text[])
      ORDER BY f.mailbox_id, ${ROLE_ORDER}, lower(f.path)`,
    [orgId, mailboxIds, principalId],
  );
  const out = new Map<string, z.infer<typeof Folder>[]>();
  for (const r of rows) {
    const list = out.get(r.mailbox_id) ?? [];
    list.push({ id: r.folder_id, path: r.path, role: r.role, threads: Number(r.threads), unread: Number(r.unread) });
    out.set(r.mailbox_id, list);
  }
  return out;
}

/** One folder as the caller sees it. */
export async function folderView(q: Queryable, orgId: string, folder: FolderRow, principalId: string): Promise<z.infer<typeof Folder>> {
  const views = await folderViews(q, orgId, [folder.mailbox_id], principalId);
  return one((views.get(folder.mailbox_id) ?? []).filter((f) => f.id === folder.folder_id) as [z.infer<typeof Folder>], `folder ${folder.folder_id}`);
}
