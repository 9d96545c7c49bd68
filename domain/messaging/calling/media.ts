import type { TrackType } from 'livekit-server-sdk';
import type { z } from 'zod';
import type { Media } from '../../../protocol/methods/calling.js';
import type { Queryable } from '../../../db/types.js';
import { appendEvent } from '../../../ledger/append.js';
import type { Deps } from '../../core/deps.js';
import type { HandlerCtx } from '../../core/handler.js';
import type { LivekitConfig } from './config.js';

/*
 * LiveKit (docs/families/messaging.md, Calls): a join token per participant (identity = principal id, room = call id,
 * observers cannot publish), minted in the call; room and egress calls only after the call's commit, never inside
 * a transaction (a LiveKit server that hangs must not hold a row lock, and PGlite has a single connection).
 * Each is retried a few times with backoff and logged when it finally fails. Not a pg-boss job: a job's effect
 * runs inside its own transaction. Without LiveKit all of this is skipped: calls are control plane and record only,
 * and the SDK (a fifth of a second to load) is never loaded.
 */

type Livekit = typeof import('livekit-server-sdk');
const livekit = (): Promise<Livekit> => import('livekit-server-sdk');

export async function mediaFor(cfg: LivekitConfig | null, callId: string, principalId: string, canPublish: boolean): Promise<z.infer<typeof Media>> {
  if (!cfg) return null;
  const { AccessToken } = await livekit();
  const token = new AccessToken(cfg.apiKey, cfg.apiSecret, { identity: principalId, ttl: cfg.tokenTtlSeconds });
  token.addGrant({ roomJoin: true, room: callId, canSubscribe: true, canPublish, canPublishData: canPublish });
  // The SDK stamps nbf/exp from the wall clock, so expiresAt does too.
  const expiresAt = new Date(Date.now() + cfg.tokenTtlSeconds * 1000).toISOString();
  return { url: cfg.url, token: await token.toJwt(), room: callId, canPublish, expiresAt };
}

export type MediaAction =
  | { op: 'mute'; callId: string; principalIds: string[] }
  | { op: 'remove'; callId: string; principalIds: string[] }
  | { op: 'deleteRoom'; callId: string }
  | { op: 'egressStart'; orgId: string; callId: string; recordingId: string }
  | { op: 'egressStop'; orgId: string; callId: string; recordingId: string; egressId: string };

/** Work started after commit and not yet finished (tests wait for it; nothing else reads it). */
const inFlight = new Set<Promise<void>>();

/** Resolves once every LiveKit call started so far (and what they started) has finished. */
export async function mediaSettled(): Promise<void> {
  while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
}

/** Run `action` against LiveKit once the call's transaction has committed (nothing without LiveKit). */
export function afterCommitMedia(ctx: HandlerCtx, action: MediaAction): void {
  const cfg = ctx.deps.config.livekit;
  if (!cfg) return;
  ctx.afterCommit(() => launch(ctx.deps, cfg, action));
}

export function launch(deps: Deps, cfg: LivekitConfig, action: MediaAction): void {
  const p = perform(deps, cfg, action).catch((err: Error) => deps.log.warn({ err, op: action.op, callId: action.callId }, 'LiveKit call failed'));
  inFlight.add(p);
  void p.finally(() => inFlight.delete(p));
}

const rooms = (lk: Livekit, cfg: LivekitConfig) =>
  new lk.RoomServiceClient(cfg.url, cfg.apiKey, cfg.apiSecret, { requestTimeout: cfg.requestTimeoutSeconds, failover: false });
const egress = (lk: Livekit, cfg: LivekitConfig) =>
  new lk.EgressClient(cfg.url, cfg.apiKey, cfg.apiSecret, { requestTimeout: cfg.requestTimeoutSeconds, failover: false });

const notThere = (lk: Livekit, err: unknown) => err instanceof lk.ServerError && (err.status === 404 || err.code === 'not_found');

/** Retries on transport errors and 5xx (1 s, 2 s, 4 s apart); a 4xx is final. */
async function retrying<T>(lk: Livekit, fn: () => Promise<T>, attempts = 4): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (err) {
      const final = err instanceof lk.ServerError && err.status < 500;
      if (final || i + 1 >= attempts) throw err;
      await new Promise((r) => setTimeout(r, 1000 * 2 ** i));
    }
  }
}

/** Gone already counts as done: a participant who left the room, a room LiveKit closed itself. */
async function unlessGone(lk: Livekit, fn: () => Promise<unknown>): Promise<void> {
  try {
    await retrying(lk, fn);
  } catch (err) {
    if (!notThere(lk, err)) throw err;
  }
}

async function perform(deps: Deps, cfg: LivekitConfig, a: MediaAction): Promise<void> {
  const lk = await livekit();
  switch (a.op) {
    case 'mute':
      for (const identity of a.principalIds) {
        // Server-side mute of the microphone only (LiveKit's MutePublishedTrack): unmuting is the participant's own act.
        let tracks: { sid: string; type: TrackType; muted: boolean }[] = [];
        try {
          tracks = (await retrying(lk, () => rooms(lk, cfg).getParticipant(a.callId, identity))).tracks;
        } catch (err) {
          if (notThere(lk, err)) continue;
          throw err;
        }
        for (const t of tracks.filter((t) => t.type === lk.TrackType.AUDIO && !t.muted)) {
          await unlessGone(lk, () => rooms(lk, cfg).mutePublishedTrack(a.callId, identity, t.sid, true));
        }
      }
      return;
    case 'remove':
      for (const identity of a.principalIds) await unlessGone(lk, () => rooms(lk, cfg).removeParticipant(a.callId, identity));
      return;
    case 'deleteRoom':
      return unlessGone(lk, () => rooms(lk, cfg).deleteRoom(a.callId));
    case 'egressStop':
      return unlessGone(lk, () => egress(lk, cfg).stopEgress(a.egressId));
    case 'egressStart':
      return startEgress(lk, deps, cfg, a);
  }
}

/** A system event (actor ""), appended in q's transaction; streams hear of it after commit. */
async function systemEvent(q: Queryable, orgId: string, kind: string, entityId: string, payload: Record<string, unknown>): Promise<number> {
  return (await appendEvent(q, orgId, { family: 'calling', kind, entityId, actor: '', payload })).seq;
}

/**
 * Room composite to a file. Once LiveKit answers, the recording keeps its egress id and turns active; if it was
 * stopped meanwhile, the egress is stopped at once. If LiveKit refuses, the recording fails.
 */
async function startEgress(lk: Livekit, deps: Deps, cfg: LivekitConfig, a: Extract<MediaAction, { op: 'egressStart' }>): Promise<void> {
  let egressId: string | null = null;
  let failure: string | null = null;
  try {
    const output = new lk.EncodedFileOutput({ fileType: lk.EncodedFileType.MP4, filepath: `${a.orgId}/${a.callId}/${a.recordingId}.mp4` });
    egressId = (await retrying(lk, () => egress(lk, cfg).startRoomCompositeEgress(a.callId, output, { layout: 'grid' }))).egressId;
  } catch (err) {
    failure = `LiveKit egress did not start: ${(err as Error).message}`.slice(0, 500);
  }
  let seq: number | null = null;
  let stopNow = false;
  await deps.db.tx(async (q) => {
    const [r] = await q.query<{ status: string; egress_id: string | null }>(
      'SELECT status, egress_id FROM call_recordings WHERE org_id = $1 AND recording_id = $2 FOR UPDATE',
      [a.orgId, a.recordingId],
    );
    if (!r || r.egress_id !== null) return;
    if (egressId === null) {
      if (r.status !== 'starting' && r.status !== 'stopped') return;
      await q.query(`UPDATE call_recordings SET status = 'failed', failure = $3 WHERE org_id = $1 AND recording_id = $2`, [a.orgId, a.recordingId, failure]);
      seq = await systemEvent(q, a.orgId, 'calling.recording.fail', a.callId, { callId: a.callId, recordingId: a.recordingId, status: 'failed' });
      return;
    }
    if (r.status === 'starting') {
      await q.query(`UPDATE call_recordings SET status = 'active', egress_id = $3 WHERE org_id = $1 AND recording_id = $2`, [a.orgId, a.recordingId, egressId]);
      seq = await systemEvent(q, a.orgId, 'calling.recording.activate', a.callId, { callId: a.callId, recordingId: a.recordingId, status: 'active' });
      return;
    }
    // Stopped (or the call ended) before LiveKit answered: keep the id for its webhook, and stop it now.
    await q.query('UPDATE call_recordings SET egress_id = $3 WHERE org_id = $1 AND recording_id = $2', [a.orgId, a.recordingId, egressId]);
    stopNow = true;
  });
  if (seq !== null) deps.stream.appended(a.orgId, seq);
  if (stopNow && egressId) launch(deps, cfg, { op: 'egressStop', orgId: a.orgId, callId: a.callId, recordingId: a.recordingId, egressId });
}
