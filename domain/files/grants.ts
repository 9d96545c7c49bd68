import type { z } from 'zod';
import type { Grant } from '../../protocol/methods/files/drive.js';
import type { Queryable } from '../../db/types.js';
import type { FileRole, FileRow } from './access.js';

/* Grant rows as the contract shows them: an outside email only to the file's managers (others see its domain). */

export interface GrantRow {
  grant_id: string;
  file_id: string;
  grantee_kind: 'principal' | 'team' | 'org' | 'email';
  grantee: string;
  role: FileRole;
  expires_at: string | Date | null;
  views: number;
  created_by: string;
  created_at: string | Date;
  revoked_at: string | Date | null;
  revoked_by: string | null;
}

export const GRANT_COLUMNS = 'grant_id, file_id, grantee_kind, grantee, role, expires_at, views, created_by, created_at, revoked_at, revoked_by';

export type GrantView = z.infer<typeof Grant>;

const iso = (v: string | Date | null) => (v === null ? null : new Date(v).toISOString());

export const emailDomain = (email: string) => email.slice(email.lastIndexOf('@') + 1);

export function grantStatus(g: GrantRow, now: Date): GrantView['status'] {
  if (g.revoked_at !== null) return 'revoked';
  if (g.expires_at !== null && new Date(g.expires_at).getTime() <= now.getTime()) return 'expired';
  return 'active';
}

export function toGrant(g: GrantRow, opts: { forFileId: string; manager: boolean; now: Date }): GrantView {
  let grantee: string | null = g.grantee;
  if (g.grantee_kind === 'org') grantee = null;
  else if (g.grantee_kind === 'email' && !opts.manager) grantee = `@${emailDomain(g.grantee)}`;
  return {
    id: g.grant_id,
    fileId: g.file_id,
    inherited: g.file_id !== opts.forFileId,
    granteeKind: g.grantee_kind,
    grantee,
    role: g.role,
    expiresAt: iso(g.expires_at),
    views: Number(g.views),
    status: grantStatus(g, opts.now),
    createdBy: g.created_by,
    createdAt: iso(g.created_at)!,
  };
}

/** The unrevoked grants reaching a file: on it and on its access path (inherited), nearest first. */
export async function grantsReaching(q: Queryable, orgId: string, file: FileRow, role: FileRole, now: Date): Promise<GrantView[]> {
  const rows = await q.query<GrantRow>(
    `SELECT ${GRANT_COLUMNS} FROM file_grants
      WHERE org_id = $1 AND file_id = ANY($2::text[]) AND revoked_at IS NULL
      ORDER BY array_position($2::text[], file_id) DESC, created_at, grant_id LIMIT 500`,
    [orgId, file.access_path],
  );
  return rows.map((g) => toGrant(g, { forFileId: file.file_id, manager: role === 'manager', now }));
}
