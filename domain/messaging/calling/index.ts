import { conflict, notFound } from '../../../protocol/errors.js';
import { calling as c } from '../../../protocol/methods/calling.js';
import { one } from '../../../db/types.js';
import { channelAccess } from '../channel/access.js';
import { family, type Family } from '../../core/family.js';
import { handler } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { getMembers } from '../../people/index.js';
import { postMessage } from '../post.js';
import { chat, lowerHand, raiseHand, react, setLock, setMute } from './controls.js';
import { end, removeParticipant } from './leave.js';
import { mediaFor } from './media.js';
import { callAccess, callShape, channelStanding, getCallRow, participantRow, requireJoined, transcriptLineCall, type CallRow } from './model.js';
import { recordingStart, recordingStop } from './recording.js';
import { addTranscriptLine, getTranscript } from './transcript.js';
import { recordVisibility } from '../../event-records.js';
import { callingReferences } from './references.js';

/*
 * calling.*: a call is a huddle in a channel (docs/families/messaging.md). start, join, invite and getDetails here;
 * leaving and ending in leave.ts; mute, lock, hands, reactions and chat in controls.ts; recording and the transcript
 * in their own files. Events carry ids, counts and statuses only (and ledger/redact.ts strips body-like fields
 * anyway).
 */

export const start = handler(c.start, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const at = now.toISOString();
  // Write access (members who are not observers, a live channel), under the channel's lock: one live call per channel.
  await channelAccess(ctx.q, ctx.orgId, p.channelId, ctx.principal.id, 'write', { lock: true });
  const [live] = await ctx.q.query<{ call_id: string }>(`SELECT call_id FROM calls WHERE org_id = $1 AND channel_id = $2 AND status = 'live'`, [
    ctx.orgId,
    p.channelId,
  ]);
  if (live) throw conflict(`${p.channelId} already has a live call ${live.call_id}: join it (calling.join) or ask its host to end it`);
  const callId = newId('call');
  const root = await postMessage(ctx.q, ctx.orgId, { channelId: p.channelId, authorId: ctx.principal.id, text: p.title ?? 'Call started', kind: 'call', now });
  const call = one(
    await ctx.q.query<CallRow>(
      `INSERT INTO calls (org_id, call_id, channel_id, root_message_id, title, status, host_id, started_by, started_at)
     VALUES ($1, $2, $3, $4, $5, 'live', $6, $6, $7) RETURNING *`,
      [ctx.orgId, callId, p.channelId, root.messageId, p.title ?? null, ctx.principal.id, at],
    ),
  );
  await ctx.q.query(
    `INSERT INTO call_participants (org_id, call_id, principal_id, role, state, can_publish, joined_at) VALUES ($1, $2, $3, 'host', 'joined', true, $4)`,
    [ctx.orgId, callId, ctx.principal.id, at],
  );
  const shape = await callShape(ctx.q, ctx.orgId, call, now);
  const media = await mediaFor(ctx.deps.config.livekit, callId, ctx.principal.id, true);
  await ctx.emit('calling.call.start', callId, { callId, channelId: p.channelId, rootMessageId: root.messageId, seq: root.seq, hostId: ctx.principal.id });
  return { call: shape, media, changed: true };
});

export const join = handler(c.join, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const call = await getCallRow(ctx.q, ctx.orgId, p.callId, true);
  const me = await participantRow(ctx.q, ctx.orgId, call.call_id, ctx.principal.id);
  const channel = await channelStanding(ctx.q, ctx.orgId, call.channel_id, ctx.principal.id);
  if (!me && !channel?.role) {
    // A public channel's call is no secret (its root message is in the channel): say how to get in.
    if (channel?.kind === 'public') {
      throw conflict(
        `not a member of ${call.channel_id}: join the channel first (channel.addMember with your own id), or ask someone in call ${call.call_id} to invite you (calling.invite)`,
      );
    }
    throw notFound(`call ${call.call_id}`);
  }
  if (call.status !== 'live') throw conflict(`call ${call.call_id} has ended: nothing to join; start a new one (calling.start)`);
  const canPublish = channel?.role !== 'observer';
  if (me?.state === 'joined') {
    // Joined already: a fresh token, nothing else.
    const media = await mediaFor(ctx.deps.config.livekit, call.call_id, ctx.principal.id, me.can_publish);
    const shape = await callShape(ctx.q, ctx.orgId, call, now);
    await ctx.emit('calling.participant.join', call.call_id, {
      callId: call.call_id,
      principalId: ctx.principal.id,
      joinedCount: shape.joinedCount,
      noop: true,
    });
    return { call: shape, media, changed: false };
  }
  if (me?.state !== 'invited') {
    if (me?.state === 'removed') {
      throw conflict(
        `you were removed from call ${call.call_id}${me.removed_by ? ` by ${me.removed_by}` : ''}: only an invitation lets you back in; ask someone in it (calling.invite)`,
      );
    }
    if (call.locked) throw conflict(`call ${call.call_id} is locked: only invitees may join; ask the host (${call.host_id}) to invite you (calling.invite)`);
  }
  const at = now.toISOString();
  await ctx.q.query(
    `INSERT INTO call_participants (org_id, call_id, principal_id, role, state, can_publish, joined_at)
     VALUES ($1, $2, $3, 'attendee', 'joined', $4, $5)
     ON CONFLICT (org_id, call_id, principal_id) DO UPDATE SET state = 'joined', can_publish = $4, muted = false, hand_raised_at = NULL,
       hand_seq = NULL, joined_at = coalesce(call_participants.joined_at, $5), left_at = NULL, removed_by = NULL`,
    [ctx.orgId, call.call_id, ctx.principal.id, canPublish, at],
  );
  const shape = await callShape(ctx.q, ctx.orgId, call, now);
  const media = await mediaFor(ctx.deps.config.livekit, call.call_id, ctx.principal.id, canPublish);
  await ctx.emit('calling.participant.join', call.call_id, {
    callId: call.call_id,
    principalId: ctx.principal.id,
    invited: me?.state === 'invited',
    canPublish,
    joinedCount: shape.joinedCount,
  });
  return { call: shape, media, changed: true };
});

export const invite = handler(c.invite, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const a = await callAccess(ctx.q, ctx.orgId, p.callId, ctx.principal.id, { lock: true });
  requireJoined(a, 'invite');
  if (a.call.locked && a.call.host_id !== ctx.principal.id) {
    throw conflict(`call ${a.call.call_id} is locked: only the host (${a.call.host_id}) invites; ask them, or ask them to unlock it (calling.setLock)`);
  }
  const ids = [...new Set(p.principalIds)];
  const members = await getMembers(ctx.q, ctx.orgId, ids);
  const missing = ids.find((id) => !members.some((m) => m.id === id));
  if (missing) throw notFound(`member ${missing}`);
  const inactive = members.find((m) => m.status !== 'active');
  if (inactive) throw conflict(`member ${inactive.id} is ${inactive.status}: only active members can be invited`);
  // Everyone not in the call and not invited already: (re-)invited, even after a removal.
  const invited = await ctx.q.query<{ principal_id: string }>(
    `INSERT INTO call_participants (org_id, call_id, principal_id, role, state, invited_by, invited_at)
     SELECT $1, $2, id, 'attendee', 'invited', $4, $5 FROM unnest($3::text[]) AS id
     ON CONFLICT (org_id, call_id, principal_id) DO UPDATE SET state = 'invited', invited_by = $4, invited_at = $5, removed_by = NULL
       WHERE call_participants.state IN ('left', 'removed')
     RETURNING principal_id`,
    [ctx.orgId, a.call.call_id, ids, ctx.principal.id, now.toISOString()],
  );
  const shape = await callShape(ctx.q, ctx.orgId, a.call, now);
  const principalIds = invited.map((r) => r.principal_id).sort();
  await ctx.emit('calling.participant.invite', a.call.call_id, {
    callId: a.call.call_id,
    principalIds,
    invitedCount: principalIds.length,
    ...(principalIds.length === 0 ? { noop: true } : {}),
  });
  return { call: shape, changed: principalIds.length > 0 };
});

export const getDetails = handler(c.getDetails, async (ctx, p) => {
  const a = await callAccess(ctx.q, ctx.orgId, p.callId, ctx.principal.id);
  return { call: await callShape(ctx.q, ctx.orgId, a.call, ctx.deps.clock.now()) };
});

export const callingHandlers = family('calling', {
  start,
  join,
  invite,
  removeParticipant,
  setMute,
  setLock,
  raiseHand,
  lowerHand,
  react,
  chat,
  recordingStart,
  recordingStop,
  addTranscriptLine,
  end,
  getDetails,
  getTranscript,
});

/** Who sees a calling event: those who may read the call (a participant, or a live member of its channel), its actor. */
export const callingEvents = recordVisibility({ records: (e, p) => [p.callId ?? p.subjectId ?? e.entity_id] });

/** The calling family, as domain/deployed.ts lists it. */
export const callingFamily: Family = {
  name: 'calling',
  methods: callingHandlers,
  eventVisibility: { calling: callingEvents },
  config: { livekit: null },
  contributes: { references: callingReferences, transcriptLines: transcriptLineCall },
};
