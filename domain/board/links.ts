import { one } from '../../db/types.js';
import { conflict } from '../../protocol/errors.js';
import { board as c } from '../../protocol/methods/board.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { getTask, lockBoard, toLink, type LinkRow } from './model.js';

/**
 * Links between two items of one org. `blocks` keeps toTaskId out of /board.ready (and unclaimable) until
 * fromTaskId is done, so a cycle of blocks would block its items forever: it is refused. `relates` is
 * symmetric, so A relates B and B relates A are the same link.
 */

export const link = handler(c.link, async (ctx, p) => {
  await lockBoard(ctx.q, ctx.orgId, 'links');
  await getTask(ctx.q, ctx.orgId, p.fromTaskId, 'FOR KEY SHARE');
  await getTask(ctx.q, ctx.orgId, p.toTaskId, 'FOR KEY SHARE');

  const [existing] = await ctx.q.query<{ link_id: string }>(
    `SELECT link_id FROM board_links
      WHERE org_id = $1 AND relation = $4
        AND ((from_task_id = $2 AND to_task_id = $3) OR ($4 = 'relates' AND from_task_id = $3 AND to_task_id = $2))`,
    [ctx.orgId, p.fromTaskId, p.toTaskId, p.relation],
  );
  if (existing) throw conflict(`${p.fromTaskId} already ${p.relation === 'relates' ? 'relates to' : p.relation} ${p.toTaskId} (${existing.link_id})`);

  if (p.relation === 'blocks') {
    // A cycle closes when toTaskId already (transitively) blocks fromTaskId.
    const [cycle] = await ctx.q.query(
      `WITH RECURSIVE reach(task_id) AS (
         SELECT to_task_id FROM board_links WHERE org_id = $1 AND relation = 'blocks' AND from_task_id = $2
         UNION
         SELECT l.to_task_id FROM board_links l JOIN reach r ON l.from_task_id = r.task_id
          WHERE l.org_id = $1 AND l.relation = 'blocks')
       SELECT 1 FROM reach WHERE task_id = $3 LIMIT 1`,
      [ctx.orgId, p.toTaskId, p.fromTaskId],
    );
    if (cycle) throw conflict(`${p.toTaskId} already blocks ${p.fromTaskId} (directly or through other items): the link would close a cycle`);
  }

  const row = one(
    await ctx.q.query<LinkRow>(
      `INSERT INTO board_links (org_id, link_id, from_task_id, to_task_id, relation, created_by)
     VALUES ($1, $2, $3, $4, $5, $6)
     RETURNING link_id, from_task_id, to_task_id, relation, created_by, created_at`,
      [ctx.orgId, newId('lnk'), p.fromTaskId, p.toTaskId, p.relation, ctx.principal.id],
    ),
  );
  const created = toLink(row);
  await ctx.emit('item.linked', created.fromTaskId, { linkId: created.id, toTaskId: created.toTaskId, relation: created.relation });
  return created;
});
