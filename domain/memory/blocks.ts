import { one } from '../../db/types.js';
import { ApiError, badRequest, conflict, notFound } from '../../protocol/errors.js';
import { DEFAULT_LIMIT, memory as c } from '../../protocol/methods/memory.js';
import { handler } from '../core/handler.js';
import { sha256Hex } from '../../protocol/hashing.js';
import { actionClassOf } from '../approval/index.js';
import {
  AMENDMENT_COLUMNS,
  BLOCK_COLUMNS,
  compilePrompt,
  insertVersion,
  loads,
  shared,
  toAmendment,
  toBlock,
  valueHash,
  type AmendmentRow,
  type BlockRow,
} from './model.js';

/*
 * memory.author writes one of the caller's blocks by label, whole; memory.list shows what each reader may see (humans
 * every block, an agent what it loads) and compiles the prompt an agent loads. Events carry the version and the
 * value's SHA-256 (what agents were told), never the value.
 */

export const author = handler(c.author, async (ctx, p) => {
  const now = ctx.deps.clock.now().toISOString();
  await ctx.q.query(`SELECT pg_advisory_xact_lock(hashtext('memory:' || $1 || ':' || $2 || ':' || $3))`, [ctx.orgId, ctx.principal.id, p.label]);
  const [row] = await ctx.q.query<BlockRow>(`SELECT ${BLOCK_COLUMNS} FROM memory_blocks WHERE org_id = $1 AND owner_id = $2 AND label = $3 FOR UPDATE`, [
    ctx.orgId,
    ctx.principal.id,
    p.label,
  ]);
  const version = row ? Number(row.version) : 0;
  if (p.ifVersion !== undefined && p.ifVersion !== version) {
    throw conflict(
      row
        ? `memory block ${row.block_id} ("${p.label}") is at version ${version}, not ${p.ifVersion}: read it (memory.list) and retry with ifVersion ${version}`
        : `you have no block "${p.label}" yet (version 0), not version ${p.ifVersion}: retry with ifVersion 0`,
    );
  }
  const limit = p.limit ?? (row ? Number(row.char_limit) : DEFAULT_LIMIT);
  if (p.value.length > limit) throw badRequest('value', `${p.value.length - limit} characters over limit ${limit}`);
  const audience = p.audience ?? (row ? (row.audience === 'agents' ? { agents: row.audience_agents } : row.audience) : 'self');
  const agents = typeof audience === 'object' ? [...new Set(audience.agents)] : [];
  if (agents.length) {
    const known = await ctx.q.query<{ principal_id: string }>(
      `SELECT principal_id FROM principals WHERE org_id = $1 AND principal_id = ANY($2::text[]) AND kind = 'agent'`,
      [ctx.orgId, agents],
    );
    const i = agents.findIndex((a) => !known.some((k) => k.principal_id === a));
    if (i >= 0) throw badRequest(`audience.agents.${i}`, `no agent ${agents[i]} in this org`);
  }
  const next = {
    owner_id: ctx.principal.id,
    audience: typeof audience === 'object' ? ('agents' as const) : audience,
    audience_agents: agents,
  };
  const description = p.description ?? row?.description ?? '';
  const readOnly = p.readOnly ?? row?.read_only ?? false;
  const sha256 = valueHash(p.value);
  const same =
    row &&
    row.value === p.value &&
    row.description === description &&
    Number(row.char_limit) === limit &&
    row.audience === next.audience &&
    row.audience_agents.join(',') === agents.join(',') &&
    row.read_only === readOnly;
  const base = { audience: next.audience, agents: agents.length };
  if (row && same) {
    await ctx.emit('memory.block.author', row.block_id, { ...base, blockId: row.block_id, version, sha256, noop: true });
    return { block: toBlock(row), changed: false };
  }
  // A new block's id follows from its owner and label, so a held write and its retry name the same subject.
  const blockId = row?.block_id ?? `mem_${sha256Hex(`${ctx.orgId}\n${ctx.principal.id}\n${p.label}`).slice(0, 20)}`;
  const sharedNow = shared(next) || (row !== undefined && shared(row));
  const proof =
    ctx.principal.kind === 'agent' && sharedNow
      ? await ctx.requireSignature({
          actionClass: actionClassOf(ctx.method.name),
          subjectId: blockId,
          summary: `An agent writes memory block "${p.label}" as version ${version + 1} (value ${sha256.slice(0, 12)}), loaded by ${
            next.audience === 'org' ? 'every agent' : next.audience === 'agents' ? `${agents.length} agent(s)` : 'itself only, after others did'
          }`,
          params: p,
        })
      : null;
  const values = [ctx.orgId, blockId, ctx.principal.id, p.label, description, p.value, limit, next.audience, agents, readOnly, version + 1, sha256, now];
  const saved = one(
    row
      ? await ctx.q.query<BlockRow>(
          `UPDATE memory_blocks SET description = $5, value = $6, char_limit = $7, audience = $8, audience_agents = $9, read_only = $10, version = $11,
                sha256 = $12, updated_at = $13, updated_by = $3
          WHERE org_id = $1 AND block_id = $2 AND owner_id = $3 AND label = $4 RETURNING ${BLOCK_COLUMNS}`,
          values,
        )
      : await ctx.q.query<BlockRow>(
          `INSERT INTO memory_blocks (org_id, block_id, owner_id, label, description, value, char_limit, audience, audience_agents, read_only, version,
                                    sha256, created_at, updated_at, updated_by)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13, $3) RETURNING ${BLOCK_COLUMNS}`,
          values,
        ),
  );
  await insertVersion(ctx.q, ctx.orgId, {
    blockId,
    version: version + 1,
    value: p.value,
    sha256,
    by: ctx.principal.id,
    at: now,
    amendmentId: null,
    approvalId: proof?.approvalId ?? null,
  });
  await ctx.emit('memory.block.author', blockId, {
    ...base,
    blockId,
    version: version + 1,
    sha256,
    chars: p.value.length,
    limit,
    created: !row,
    approvalId: proof?.approvalId ?? null,
  });
  return { block: toBlock(saved), changed: true };
});

export const list = handler(c.list, async (ctx, p) => {
  const self = ctx.principal;
  if (p.forAgentId && self.kind === 'agent' && p.forAgentId !== self.id) {
    throw new ApiError('FORBIDDEN_SCOPE', `missing role human on ${p.forAgentId}: an agent lists the blocks it loads itself; a human lists another agent's`);
  }
  const agentId = p.forAgentId ?? (self.kind === 'agent' ? self.id : null);
  if (p.forAgentId) {
    const [agent] = await ctx.q.query(`SELECT 1 FROM principals WHERE org_id = $1 AND principal_id = $2 AND kind = 'agent'`, [ctx.orgId, p.forAgentId]);
    if (!agent) throw notFound(`agent ${p.forAgentId}`);
  }
  const all = await ctx.q.query<BlockRow>(`SELECT ${BLOCK_COLUMNS} FROM memory_blocks WHERE org_id = $1 ORDER BY label, block_id`, [ctx.orgId]);
  // An agent's own blocks first, then the shared ones it loads, as its prompt lists them.
  const blocks = agentId === null ? all : all.filter((b) => loads(b, agentId)).sort((a, b) => Number(b.owner_id === agentId) - Number(a.owner_id === agentId));
  const amendments = blocks.length
    ? await ctx.q.query<AmendmentRow>(
        `SELECT ${AMENDMENT_COLUMNS} FROM memory_amendments WHERE org_id = $1 AND block_id = ANY($2::text[]) AND status = 'open' ORDER BY created_at, amendment_id`,
        [ctx.orgId, blocks.map((b) => b.block_id)],
      )
    : [];
  return { blocks: blocks.map(toBlock), amendments: amendments.map(toAmendment), prompt: p.format === 'prompt' ? compilePrompt(blocks) : null };
});
