import { conflict, notFound } from '../../../protocol/errors.js';
import { calling as c } from '../../../protocol/methods/calling.js';
import { one, type Queryable } from '../../../db/types.js';
import { handler, type HandlerCtx } from '../../core/handler.js';
import { callSummaryText, summariseCallMessage } from '../calls.js';
import { afterCommitMedia } from './media.js';
import { callAccess, callShape, joinedIds, participantRow, requireHost, requireLive, type CallRow } from './model.js';

/*
 * Leaving and ending: a participant leaves, the host removes someone (who then needs an invitation to come back),
 * the host ends the call. A host who leaves passes the host to whoever joined first; the last one out ends it.
 */

/**
 * End a live call (its row locked by the caller): everyone in it leaves, raised hands drop, a running recording
 * stops, the root message becomes the summary; after commit the room is deleted and the egress stopped.
 */
export async function endCall(
  ctx: HandlerCtx,
  call: CallRow,
  now: Date,
): Promise<{ durationMs: number; participantCount: number; recordingId: string | null }> {
  const q: Queryable = ctx.q;
  const at = now.toISOString();
  await q.query(`UPDATE calls SET status = 'ended', ended_at = $3, ended_by = $4 WHERE org_id = $1 AND call_id = $2`, [
    ctx.orgId,
    call.call_id,
    at,
    ctx.principal.id,
  ]);
  await q.query(
    `UPDATE call_participants SET state = 'left', left_at = $3, hand_raised_at = NULL, hand_seq = NULL
      WHERE org_id = $1 AND call_id = $2 AND state = 'joined'`,
    [ctx.orgId, call.call_id, at],
  );
  const [stopped] = await q.query<{ recording_id: string; egress_id: string | null }>(
    `UPDATE call_recordings SET status = 'stopped', stopped_at = $3, stopped_by = $4
      WHERE org_id = $1 AND call_id = $2 AND status IN ('starting', 'active') RETURNING recording_id, egress_id`,
    [ctx.orgId, call.call_id, at, ctx.principal.id],
  );
  const { n } = one(
    await q.query<{ n: number }>('SELECT count(*)::int AS n FROM call_participants WHERE org_id = $1 AND call_id = $2 AND joined_at IS NOT NULL', [
      ctx.orgId,
      call.call_id,
    ]),
  );
  const durationMs = Math.max(0, now.getTime() - new Date(call.started_at).getTime());
  await summariseCallMessage(q, ctx.orgId, call.root_message_id, callSummaryText(durationMs, n));
  if (stopped?.egress_id)
    afterCommitMedia(ctx, { op: 'egressStop', orgId: ctx.orgId, callId: call.call_id, recordingId: stopped.recording_id, egressId: stopped.egress_id });
  afterCommitMedia(ctx, { op: 'deleteRoom', callId: call.call_id });
  return { durationMs, participantCount: n, recordingId: stopped?.recording_id ?? null };
}

export const removeParticipant = handler(c.removeParticipant, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const a = await callAccess(ctx.q, ctx.orgId, p.callId, ctx.principal.id, { lock: true });
  const target = p.principalId ?? ctx.principal.id;
  const self = target === ctx.principal.id;
  const event = (payload: Record<string, unknown>) =>
    ctx.emit('calling.participant.remove', a.call.call_id, { callId: a.call.call_id, principalId: target, ...payload });
  requireLive(a.call, self ? 'leave' : 'remove participants');
  if (!self) requireHost(a, 'remove others');
  const row = self ? a.me : await participantRow(ctx.q, ctx.orgId, a.call.call_id, target);
  if (!row) throw self ? conflict(`you are not in call ${a.call.call_id}: nothing to leave`) : notFound(`participant ${target} in call ${a.call.call_id}`);
  // Leaving: joined or invited (declining) -> left. Removing: anything but removed -> removed (only an invitation re-admits).
  const next = self ? 'left' : 'removed';
  if ((self && (row.state === 'left' || row.state === 'removed')) || (!self && row.state === 'removed')) {
    const shape = await callShape(ctx.q, ctx.orgId, a.call, now);
    await event({ state: row.state, noop: true });
    return { call: shape, changed: false };
  }
  const wasIn = row.state === 'joined';
  await ctx.q.query(
    `UPDATE call_participants SET state = $4, left_at = CASE WHEN state = 'joined' THEN $5::timestamptz ELSE left_at END, removed_by = $6,
            hand_raised_at = NULL, hand_seq = NULL
      WHERE org_id = $1 AND call_id = $2 AND principal_id = $3`,
    [ctx.orgId, a.call.call_id, target, next, now.toISOString(), self ? null : ctx.principal.id],
  );
  const remaining = await joinedIds(ctx.q, ctx.orgId, a.call.call_id);
  let call = a.call;
  let ended = false;
  if (remaining.length === 0) {
    await endCall(ctx, a.call, now);
    ended = true;
  } else if (target === a.call.host_id) {
    // The host left: whoever joined first hosts now, so the call keeps someone who may mute, lock and end it.
    const heir = remaining[0];
    await ctx.q.query(`UPDATE call_participants SET role = 'attendee' WHERE org_id = $1 AND call_id = $2 AND principal_id = $3`, [
      ctx.orgId,
      a.call.call_id,
      target,
    ]);
    await ctx.q.query(`UPDATE call_participants SET role = 'host' WHERE org_id = $1 AND call_id = $2 AND principal_id = $3`, [ctx.orgId, a.call.call_id, heir]);
    await ctx.q.query('UPDATE calls SET host_id = $3 WHERE org_id = $1 AND call_id = $2', [ctx.orgId, a.call.call_id, heir]);
    call = { ...a.call, host_id: heir };
  }
  if (wasIn && !ended) afterCommitMedia(ctx, { op: 'remove', callId: a.call.call_id, principalIds: [target] });
  if (ended) call = { ...a.call, status: 'ended', ended_at: now, ended_by: ctx.principal.id };
  const shape = await callShape(ctx.q, ctx.orgId, call, now);
  await event({ state: next, joinedCount: remaining.length, hostId: call.host_id, ended });
  return { call: shape, changed: true };
});

export const end = handler(c.end, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const a = await callAccess(ctx.q, ctx.orgId, p.callId, ctx.principal.id, { lock: true });
  if (a.call.status === 'ended') {
    const shape = await callShape(ctx.q, ctx.orgId, a.call, now);
    await ctx.emit('calling.call.end', a.call.call_id, { callId: a.call.call_id, status: 'ended', noop: true });
    return { call: shape, changed: false };
  }
  requireHost(a, 'end the call');
  const { durationMs, participantCount, recordingId } = await endCall(ctx, a.call, now);
  const shape = await callShape(ctx.q, ctx.orgId, { ...a.call, status: 'ended', ended_at: now, ended_by: ctx.principal.id }, now);
  await ctx.emit('calling.call.end', a.call.call_id, {
    callId: a.call.call_id,
    channelId: a.call.channel_id,
    status: 'ended',
    durationMs,
    participantCount,
    recordingStopped: recordingId,
  });
  return { call: shape, changed: true };
});
