import { calling as c } from '../../../protocol/methods/calling.js';
import { handler } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { getMembers } from '../../people/index.js';
import { afterCommitMedia } from './media.js';
import { callAccess, callShape, joinedIds, latestRecording, requireHost, requireLive } from './model.js';

/*
 * Recording, by the host: LiveKit's egress (room composite to a file) when configured, else a record that the
 * call was recorded. Consent is human: an agent recording while a human is in the call holds for a human's
 * approval (calling.recording_start, retry mode). LiveKit's webhook later sets it ready or failed (webhook.ts).
 */

export const recordingStart = handler(c.recordingStart, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const a = await callAccess(ctx.q, ctx.orgId, p.callId, ctx.principal.id, { lock: true });
  requireHost(a, 'start recording');
  const callId = a.call.call_id;
  const running = await latestRecording(ctx.q, ctx.orgId, callId);
  if (running && (running.status === 'starting' || running.status === 'active')) {
    const shape = await callShape(ctx.q, ctx.orgId, a.call, now);
    await ctx.emit('calling.recording.start', callId, { callId, recordingId: running.recording_id, status: running.status, noop: true });
    return { call: shape, changed: false };
  }
  let approvalId: string | null = null;
  if (ctx.principal.kind === 'agent') {
    const present = await getMembers(ctx.q, ctx.orgId, await joinedIds(ctx.q, ctx.orgId, callId));
    const humans = present.filter((m) => m.kind === 'human').length;
    if (humans > 0) {
      const proof = await ctx.requireSignature({
        actionClass: 'calling.recording_start',
        subjectId: callId,
        summary: `Record call ${callId} in ${a.call.channel_id}: ${present.length} in the call, ${humans} of them human${humans === 1 ? '' : 's'}`,
        params: p,
      });
      approvalId = proof.approvalId;
    }
  }
  const recordingId = newId('rcd');
  const status = ctx.deps.config.livekit ? 'starting' : 'active';
  await ctx.q.query(
    `INSERT INTO call_recordings (org_id, recording_id, call_id, status, started_by, approval_id, started_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [ctx.orgId, recordingId, callId, status, ctx.principal.id, approvalId, now.toISOString()],
  );
  afterCommitMedia(ctx, { op: 'egressStart', orgId: ctx.orgId, callId, recordingId });
  const shape = await callShape(ctx.q, ctx.orgId, a.call, now);
  await ctx.emit('calling.recording.start', callId, { callId, recordingId, status, ...(approvalId ? { approvalId } : {}) });
  return { call: shape, changed: true };
});

export const recordingStop = handler(c.recordingStop, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const a = await callAccess(ctx.q, ctx.orgId, p.callId, ctx.principal.id, { lock: true });
  requireLive(a.call, 'stop recording');
  requireHost(a, 'stop recording');
  const callId = a.call.call_id;
  const [stopped] = await ctx.q.query<{ recording_id: string; egress_id: string | null }>(
    `UPDATE call_recordings SET status = 'stopped', stopped_at = $3, stopped_by = $4
      WHERE org_id = $1 AND call_id = $2 AND status IN ('starting', 'active') RETURNING recording_id, egress_id`,
    [ctx.orgId, callId, now.toISOString(), ctx.principal.id],
  );
  if (stopped?.egress_id) afterCommitMedia(ctx, { op: 'egressStop', orgId: ctx.orgId, callId, recordingId: stopped.recording_id, egressId: stopped.egress_id });
  const shape = await callShape(ctx.q, ctx.orgId, a.call, now);
  const latest = shape.recording;
  await ctx.emit('calling.recording.stop', callId, {
    callId,
    recordingId: stopped?.recording_id ?? latest?.id ?? null,
    status: stopped ? 'stopped' : (latest?.status ?? null),
    ...(stopped ? {} : { noop: true }),
  });
  return { call: shape, changed: Boolean(stopped) };
});
