import type { z } from 'zod';
import { notFound } from '../../protocol/errors.js';
import type { Artifact, ArtifactHead, ArtifactSummary, Response, ResponseHead } from '../../protocol/methods/artifact/index.js';
import { CATALOG_VERSION } from '../../protocol/methods/artifact/index.js';
import type { Queryable } from '../../db/types.js';
import type { Principal } from '../core/auth.js';
import { canReadChannel } from '../messaging/index.js';

/*
 * An artifact row and the shapes artifact answers with. Who sees one: a draft, its author alone; a posted or closed
 * one, its author and whoever may read the channel of its message; an erased one (its message deleted), nobody by
 * id (lists still show its head, so a client resuming by updatedAfter drops it). Anything else is NOT_FOUND.
 */

export type ArtifactState = 'draft' | 'posted' | 'closed' | 'erased';

export interface Doc {
  components: Record<string, unknown>[];
  data: Record<string, unknown>;
  actions: ActionDef[];
  fallbackText: string;
}

export interface ActionDef {
  actionId: string;
  label: string;
  inputs: string[];
  once?: boolean;
  closes?: boolean;
  audience: 'humans' | 'anyone' | string[];
}

export interface ArtifactRow {
  artifact_id: string;
  author_id: string;
  state: ArtifactState;
  revision: number;
  inputs_revision: number;
  title: string | null;
  doc: Doc | null;
  channel_id: string | null;
  message_id: string | null;
  responses: number;
  expires_at: string | Date | null;
  closed_by: string | null;
  closed_at: string | Date | null;
  patch_window: string | Date | null;
  patches: number;
  created_at: string | Date;
  updated_at: string | Date;
}

export const ARTIFACT_COLUMNS = `a.artifact_id, a.author_id, a.state, a.revision, a.inputs_revision, a.title, a.doc, a.channel_id, a.message_id,
  a.responses, a.expires_at, a.closed_by, a.closed_at, a.patch_window, a.patches, a.created_at, a.updated_at`;
/** The columns a list needs: no doc. */
export const SUMMARY_COLUMNS = ARTIFACT_COLUMNS.replace('a.doc,', 'NULL::jsonb AS doc,');

export interface ResponseRow {
  response_id: string;
  artifact_id: string;
  seq: number;
  action_id: string;
  actor_id: string;
  actor_kind: 'human' | 'agent';
  revision: number;
  input_values: Record<string, unknown>;
  created_at: string | Date;
}

export const RESPONSE_COLUMNS = 'r.response_id, r.artifact_id, r.seq, r.action_id, r.actor_id, r.actor_kind, r.revision, r.input_values, r.created_at';

const iso = (v: string | Date): string => new Date(v).toISOString();
const isoOrNull = (v: string | Date | null): string | null => (v === null ? null : iso(v));

export function headOf(r: ArtifactRow): z.infer<typeof ArtifactHead> {
  return {
    id: r.artifact_id,
    state: r.state,
    revision: Number(r.revision),
    inputsRevision: Number(r.inputs_revision),
    author: r.author_id,
    channelId: r.channel_id,
    messageId: r.message_id,
    responses: Number(r.responses),
    expiresAt: isoOrNull(r.expires_at),
    closedBy: r.closed_by,
    closedAt: isoOrNull(r.closed_at),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

export const summaryOf = (r: ArtifactRow): z.infer<typeof ArtifactSummary> => ({ ...headOf(r), title: r.title });

export function artifactOf(r: ArtifactRow): z.infer<typeof Artifact> {
  const doc = r.doc!;
  return {
    ...summaryOf(r),
    catalogVersion: CATALOG_VERSION,
    components: doc.components,
    data: doc.data,
    actions: doc.actions as unknown as Record<string, unknown>[],
    fallbackText: doc.fallbackText,
  };
}

export function responseHeadOf(r: ResponseRow): z.infer<typeof ResponseHead> {
  return {
    id: r.response_id,
    seq: Number(r.seq),
    actionId: r.action_id,
    actor: r.actor_id,
    actorKind: r.actor_kind,
    revision: Number(r.revision),
    at: iso(r.created_at),
  };
}

/** A response as `viewer` reads it: the values for the artifact's author and the actor only. */
export const responseOf = (r: ResponseRow, viewer: string, authorId: string): z.infer<typeof Response> => ({
  ...responseHeadOf(r),
  values: viewer === authorId || viewer === r.actor_id ? r.input_values : null,
});

/** Whether the principal sees the artifact (see the comment at the top). */
export async function sees(q: Queryable, orgId: string, row: ArtifactRow, principalId: string): Promise<boolean> {
  if (row.state === 'erased') return false;
  if (row.author_id === principalId) return true;
  if (row.state === 'draft' || row.channel_id === null) return false;
  return canReadChannel(q, orgId, row.channel_id, principalId);
}

/** The artifact as the caller may see it, or NOT_FOUND; `lock` takes its row for the call's write. */
export async function artifactFor(q: Queryable, orgId: string, artifactId: string, p: Principal, opts: { lock?: boolean } = {}): Promise<ArtifactRow> {
  const [row] = await q.query<ArtifactRow>(
    `SELECT ${ARTIFACT_COLUMNS} FROM artifacts a WHERE a.org_id = $1 AND a.artifact_id = $2 ${opts.lock ? 'FOR UPDATE' : ''}`,
    [orgId, artifactId],
  );
  if (!row || !(await sees(q, orgId, row, p.id))) throw notFound(`artifact ${artifactId}`);
  return row;
}
