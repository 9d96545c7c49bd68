import { ApiError } from '../../../protocol/errors.js';
import { MIN_PRESENCE_SECONDS, presence as c } from '../../../protocol/methods/runtime/presence.js';
import { one } from '../../../db/types.js';
import { requireTasks } from '../../board/index.js';
import { handler } from '../../core/handler.js';
import { beatPresence, type BeatRow } from './model.js';

/*
 * presence.beat: the caller's own status until it expires. One event per beat (M), bounded: a beat sooner than
 * 10 s after the caller's last is RATE_LIMITED and writes nothing. The status text stays in the row.
 */

export const beat = handler(c.beat, async (ctx, p) => {
  const [was] = await ctx.q.query<BeatRow & { since: number; live: boolean }>(
    `SELECT principal_id, status, task_id, status_text, expires_at, beat_at, extract(epoch FROM clock_timestamp() - beat_at)::float8 AS since,
            expires_at > clock_timestamp() AS live
       FROM presence_beats WHERE org_id = $1 AND principal_id = $2 FOR UPDATE`,
    [ctx.orgId, ctx.principal.id],
  );
  if (was && Number(was.since) < MIN_PRESENCE_SECONDS) {
    const wait = Math.max(1, Math.ceil(MIN_PRESENCE_SECONDS - Number(was.since)));
    throw new ApiError(
      'RATE_LIMITED',
      `rate limited: you beat ${Math.floor(Number(was.since))} s ago; beat at most every ${MIN_PRESENCE_SECONDS} s (nothing was recorded): retry in ${wait} seconds`,
      {
        retryAfterSeconds: wait,
      },
    );
  }
  const taskId = p.taskId ?? null;
  if (taskId !== null) await requireTasks(ctx.q, ctx.orgId, [{ field: 'taskId', taskId }]);
  const statusText = p.statusText ?? null;
  const changed = !was || !was.live || was.status !== p.status || was.task_id !== taskId || was.status_text !== statusText;
  const row = one(
    await ctx.q.query<BeatRow>(
      `INSERT INTO presence_beats (org_id, principal_id, status, task_id, status_text, expires_at, beat_at)
       VALUES ($1, $2, $3, $4, $5, clock_timestamp() + make_interval(secs => $6), clock_timestamp())
       ON CONFLICT (org_id, principal_id) DO UPDATE SET status = $3, task_id = $4, status_text = $5, expires_at = excluded.expires_at, beat_at = excluded.beat_at
       RETURNING principal_id, status, task_id, status_text, expires_at, beat_at`,
      [ctx.orgId, ctx.principal.id, p.status, taskId, statusText, p.ttlSeconds],
    ),
  );
  const presence = beatPresence(row);
  await ctx.emit('presence.status.beat', ctx.principal.id, { status: p.status, taskId, expiresAt: presence.expiresAt, changed });
  return { presence, changed };
});
