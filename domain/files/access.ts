import { ApiError, notFound } from '../../protocol/errors.js';
import type { Queryable } from '../../db/types.js';
import { TEAM_IDS_SQL, teamIdsOf } from '../people/index.js';

/*
 * Who may do what with a file (docs/families/files.md, Access). A role is the highest of:
 * - editor for every member when no restricted folder is on the file's path (the org root's grant {org, editor});
 * - manager for the file's creator, and for an admin key;
 * - the live, unexpired grants on any file of its access path, to the caller, one of its teams, or the org.
 * No role at all is NOT_FOUND (an unreadable file does not exist for the caller); too low a role is
 * FORBIDDEN_SCOPE `missing role editor on fil_…`. Trashed files are readable (the trash view, recover); purged
 * ones are gone. Every family that points at a file asks here (canReadFile), never at the tables.
 */

export const ROLES = ['viewer', 'commenter', 'editor', 'manager'] as const;
export type FileRole = (typeof ROLES)[number];
export type FileKind = 'folder' | 'doc' | 'sheet' | 'deck' | 'upload';

export const roleRank = (r: FileRole | null): number => (r === null ? 0 : ROLES.indexOf(r) + 1);
export const higherRole = (a: FileRole | null, b: FileRole | null): FileRole | null => (roleRank(a) >= roleRank(b) ? a : b);

export interface FileRow {
  file_id: string;
  kind: FileKind;
  name: string;
  parent_id: string | null;
  restricted: boolean;
  access_path: string[];
  open_to_org: boolean;
  review_mode: boolean;
  revision: number;
  size_bytes: string | number;
  sha256: string | null;
  content_type: string | null;
  status: 'active' | 'trashed' | 'purged';
  trashed_root: string | null;
  trashed_at: string | Date | null;
  trashed_by: string | null;
  created_by: string;
  created_at: string | Date;
  updated_by: string;
  updated_at: string | Date;
}

export const FILE_COLUMNS = `f.file_id, f.kind, f.name, f.parent_id, f.restricted, f.access_path, f.open_to_org, f.review_mode, f.revision,
  f.size_bytes, f.sha256, f.content_type, f.status, f.trashed_root, f.trashed_at, f.trashed_by, f.created_by, f.created_at, f.updated_by,
  f.updated_at`;

/** Who is asking: its id, whether its key holds the admin scope, and (looked up once per call) its teams. */
export interface Caller {
  id: string;
  admin: boolean;
}

export const callerOf = (principal: { id: string; scopes: ReadonlySet<string> }): Caller => ({ id: principal.id, admin: principal.scopes.has('admin') });

/** The highest role a grant on `path` gives the caller (its id, its teams, the org), or null. */
export async function grantedRole(q: Queryable, orgId: string, path: readonly string[], caller: Caller, now: Date): Promise<FileRole | null> {
  const teams = await teamIdsOf(q, orgId, caller.id);
  const [row] = await q.query<{ role: FileRole | null }>(
    `SELECT role FROM file_grants
      WHERE org_id = $1 AND file_id = ANY($2::text[]) AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $3)
        AND ((grantee_kind = 'principal' AND grantee = $4) OR (grantee_kind = 'team' AND grantee = ANY($5::text[])) OR grantee_kind = 'org')
      ORDER BY array_position(ARRAY['viewer', 'commenter', 'editor', 'manager'], role) DESC LIMIT 1`,
    [orgId, [...path], now.toISOString(), caller.id, teams],
  );
  return row?.role ?? null;
}

/** The caller's role on a file row (null: none, so the file does not exist for it). */
export async function roleOn(q: Queryable, orgId: string, file: FileRow, caller: Caller, now: Date): Promise<FileRole | null> {
  if (caller.admin || file.created_by === caller.id) return 'manager';
  // The org root's grant {org, editor} reaches a file with no restricted folder on its path; a grant may lift it.
  const base: FileRole | null = file.open_to_org ? 'editor' : null;
  return higherRole(base, await grantedRole(q, orgId, file.access_path, caller, now));
}

export interface FileAccess {
  file: FileRow;
  role: FileRole;
}

/**
 * The file and the caller's role, requiring at least `need`: NOT_FOUND when the caller has no role (or the file is
 * another org's, unknown or purged), FORBIDDEN_SCOPE naming the missing role otherwise. `lock` takes the row FOR
 * UPDATE (writers of one file queue on it).
 */
export async function fileAccess(
  q: Queryable,
  orgId: string,
  fileId: string,
  caller: Caller,
  need: FileRole,
  opts: { lock?: boolean; now?: Date } = {},
): Promise<FileAccess> {
  const [file] = await q.query<FileRow>(
    `SELECT ${FILE_COLUMNS} FROM files f WHERE f.org_id = $1 AND f.file_id = $2 AND f.status <> 'purged' ${opts.lock ? 'FOR UPDATE' : ''}`,
    [orgId, fileId],
  );
  if (!file) throw notFound(`file ${fileId}`);
  const role = await roleOn(q, orgId, file, caller, opts.now ?? new Date());
  if (role === null) throw notFound(`file ${fileId}`);
  if (roleRank(role) < roleRank(need))
    throw new ApiError('FORBIDDEN_SCOPE', `missing role ${need} on ${fileId} (you are ${role}): ask a manager of it to share it with you as ${need}`);
  return { file, role };
}

/** Whether the caller may read the file (other families' checks: attachments, pins, annotations, bookmarks). */
export async function canReadFile(q: Queryable, orgId: string, fileId: string, caller: Caller): Promise<boolean> {
  try {
    await fileAccess(q, orgId, fileId, caller, 'viewer');
    return true;
  } catch (err) {
    if (err instanceof ApiError && err.code === 'NOT_FOUND') return false;
    throw err;
  }
}

/**
 * SQL for "the caller may read this file row" over `files f`, for lists and search: open to the org, created by
 * the caller, or a live grant on its path to the caller, its teams or the org. Parameters: org, caller, teams, now.
 */
export const READABLE_FILE_SQL = (org: string, caller: string, teams: string, now: string, f = 'f') => `(
  ${f}.open_to_org OR ${f}.created_by = ${caller} OR EXISTS (
    SELECT 1 FROM file_grants g
     WHERE g.org_id = ${org} AND g.file_id = ANY(${f}.access_path) AND g.revoked_at IS NULL AND (g.expires_at IS NULL OR g.expires_at > ${now})
       AND ((g.grantee_kind = 'principal' AND g.grantee = ${caller}) OR (g.grantee_kind = 'team' AND g.grantee = ANY(${teams}::text[])) OR g.grantee_kind = 'org')))`;

/**
 * SQL: the ids among `ids` (a text[] expression) of files `principal` had a role on, as `id`, whatever their status
 * (a purged file keeps its row and path): the batch form of roleOn for ledger event visibility. Admin keys are
 * the audit view (domain/stream/visibility.ts) and never get here.
 */
export const READABLE_FILE_IDS_SQL = (org: string, principal: string, ids: string) =>
  `SELECT f.file_id AS id FROM files f
    WHERE f.org_id = ${org} AND f.file_id = ANY(${ids}) AND ${READABLE_FILE_SQL(org, principal, TEAM_IDS_SQL(org, principal), 'now()')}`;

/**
 * Where a new file sits: its parent's path plus itself, or a new path when it is a restricted folder or at the
 * root. `open_to_org` is inherited from the parent unless the new file is itself restricted.
 */
export function placeUnder(
  parent: Pick<FileRow, 'access_path' | 'open_to_org'> | null,
  fileId: string,
  restricted: boolean,
): { accessPath: string[]; openToOrg: boolean } {
  if (restricted) return { accessPath: [fileId], openToOrg: false };
  if (!parent) return { accessPath: [fileId], openToOrg: true };
  return { accessPath: [...parent.access_path, fileId], openToOrg: parent.open_to_org };
}
