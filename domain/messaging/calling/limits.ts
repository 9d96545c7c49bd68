import { ApiError } from '../../../protocol/errors.js';
import { one } from '../../../db/types.js';
import type { LimitCtx } from '../../core/handler.js';

/*
 * calling.react: more than 5 reactions a second per caller is RATE_LIMITED. Counted in PostgreSQL before the
 * call's transaction (every process shares the count, and a refused call still counts), per second, with the
 * previous second weighed by what is left of it: a burst straddling a second boundary is still refused.
 */

export const REACTIONS_PER_SECOND = 5;

const COUNT_SQL = `
WITH t AS (SELECT extract(epoch FROM clock_timestamp()) * 1000 AS ms),
w AS (SELECT floor(ms / 1000)::bigint AS n, (ms - floor(ms / 1000) * 1000) / 1000.0 AS f FROM t),
gone AS (DELETE FROM call_reaction_limits WHERE org_id = $1 AND principal_id = $2 AND window_no < (SELECT n - 1 FROM w)),
cur AS (
  INSERT INTO call_reaction_limits (org_id, principal_id, window_no, hits) SELECT $1, $2, n, 1 FROM w
  ON CONFLICT (org_id, principal_id, window_no) DO UPDATE SET hits = call_reaction_limits.hits + 1
  RETURNING hits)
SELECT (SELECT hits FROM cur) AS hits,
       coalesce((SELECT hits FROM call_reaction_limits WHERE org_id = $1 AND principal_id = $2 AND window_no = (SELECT n - 1 FROM w)), 0) AS previous,
       (SELECT f FROM w) AS elapsed`;

export async function limitReactions(ctx: LimitCtx): Promise<void> {
  const row = one(await ctx.db.query<{ hits: number; previous: number; elapsed: string | number }>(COUNT_SQL, [ctx.principal.orgId, ctx.principal.id]));
  const rate = Number(row.hits) + Number(row.previous) * (1 - Number(row.elapsed));
  if (rate > REACTIONS_PER_SECOND) {
    throw new ApiError('RATE_LIMITED', `rate limited: at most ${REACTIONS_PER_SECOND} reactions a second; retry in 1 second`, { retryAfterSeconds: 1 });
  }
}
