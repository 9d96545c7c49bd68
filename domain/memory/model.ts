import type { z } from 'zod';
import { notFound } from '../../protocol/errors.js';
import { sha256Hex } from '../../protocol/hashing.js';
import type { Amendment, Block } from '../../protocol/methods/memory.js';
import type { Queryable } from '../../db/types.js';
import type { Principal } from '../core/auth.js';

/* Memory blocks and amendments as rows, and who loads a block. */

export interface BlockRow {
  block_id: string;
  owner_id: string;
  label: string;
  description: string;
  value: string;
  char_limit: number;
  audience: 'self' | 'org' | 'agents';
  audience_agents: string[];
  read_only: boolean;
  version: number;
  sha256: string;
  updated_at: string | Date;
  updated_by: string;
}

export const BLOCK_COLUMNS =
  'block_id, owner_id, label, description, value, char_limit, audience, audience_agents, read_only, version, sha256, updated_at, updated_by';

export interface AmendmentRow {
  amendment_id: string;
  block_id: string;
  base_version: number;
  op: 'append' | 'replace';
  old_text: string | null;
  new_text: string;
  reason: string;
  proposer_id: string;
  status: 'open' | 'merged' | 'rejected';
  decided_by: string | null;
  merged_version: number | null;
  created_at: string | Date;
}

export const AMENDMENT_COLUMNS =
  'amendment_id, block_id, base_version, op, old_text, new_text, reason, proposer_id, status, decided_by, merged_version, created_at';

export const valueHash = (value: string): string => sha256Hex(value);

export const toBlock = (r: BlockRow): z.output<typeof Block> => ({
  id: r.block_id,
  ownerId: r.owner_id,
  label: r.label,
  description: r.description,
  value: r.value,
  limit: Number(r.char_limit),
  chars: r.value.length,
  audience: r.audience === 'agents' ? { agents: r.audience_agents } : r.audience,
  readOnly: r.read_only,
  version: Number(r.version),
  sha256: r.sha256,
  updatedAt: new Date(r.updated_at).toISOString(),
  updatedBy: r.updated_by,
});

export const toAmendment = (r: AmendmentRow): z.output<typeof Amendment> => ({
  id: r.amendment_id,
  blockId: r.block_id,
  baseVersion: Number(r.base_version),
  op: r.op,
  oldText: r.old_text,
  newText: r.new_text,
  reason: r.reason,
  proposerId: r.proposer_id,
  status: r.status,
  decidedBy: r.decided_by,
  mergedVersion: r.merged_version === null ? null : Number(r.merged_version),
  createdAt: new Date(r.created_at).toISOString(),
});

/** Whether an agent loads the block into its prompt. */
export const loads = (b: Pick<BlockRow, 'owner_id' | 'audience' | 'audience_agents'>, agentId: string): boolean =>
  b.owner_id === agentId || b.audience === 'org' || (b.audience === 'agents' && b.audience_agents.includes(agentId));

/** Whether principals other than its owner load it: an agent writing such a block holds for a human. */
export const shared = (b: Pick<BlockRow, 'owner_id' | 'audience' | 'audience_agents'>): boolean =>
  b.audience === 'org' || (b.audience === 'agents' && b.audience_agents.some((a) => a !== b.owner_id));

/** Humans read every block; an agent the blocks it loads. Others: not found. */
export const readable = (b: BlockRow, p: Principal): boolean => p.kind === 'human' || loads(b, p.id);

export async function loadBlock(q: Queryable, orgId: string, blockId: string, p: Principal, lock: '' | 'FOR UPDATE' = ''): Promise<BlockRow> {
  const [row] = await q.query<BlockRow>(`SELECT ${BLOCK_COLUMNS} FROM memory_blocks WHERE org_id = $1 AND block_id = $2 ${lock}`, [orgId, blockId]);
  if (!row || !readable(row, p)) throw notFound(`memory block ${blockId}`);
  return row;
}

/** Non-overlapping occurrences of `part` in `text`. */
export function occurrences(text: string, part: string): number {
  if (!part) return 0;
  let n = 0;
  for (let at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + part.length)) n++;
  return n;
}

export const appended = (value: string, text: string): string => (value === '' || value.endsWith('\n') ? value + text : `${value}\n${text}`);

export async function insertVersion(
  q: Queryable,
  orgId: string,
  v: { blockId: string; version: number; value: string; sha256: string; by: string; at: string; amendmentId: string | null; approvalId: string | null },
): Promise<void> {
  await q.query(
    `INSERT INTO memory_block_versions (org_id, block_id, version, value, sha256, written_by, written_at, amendment_id, approval_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [orgId, v.blockId, v.version, v.value, v.sha256, v.by, v.at, v.amendmentId, v.approvalId],
  );
}

/** The compiled text an agent loads, Letta-style: each block's label, description, size and value. */
export function compilePrompt(blocks: readonly BlockRow[]): string {
  const parts = blocks.map((b) =>
    [
      `<${b.label}>`,
      '<description>',
      b.description,
      '</description>',
      '<metadata>',
      `- chars_current=${b.value.length}`,
      `- chars_limit=${Number(b.char_limit)}`,
      `- version=${Number(b.version)}`,
      `- read_only=${b.read_only}`,
      '</metadata>',
      '<value>',
      b.value,
      '</value>',
      `</${b.label}>`,
    ].join('\n'),
  );
  return ['<memory_blocks>', 'The following memory blocks are loaded in your context.', '', ...parts, '</memory_blocks>'].join('\n');
}
