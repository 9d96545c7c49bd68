import type { EgressInfo, WebhookEvent } from 'livekit-server-sdk';
import { appendEvent } from '../../../ledger/append.js';
import type { Deps } from '../../core/deps.js';

/*
 * LiveKit's webhook (signed with the API secret; gateway/livekit-webhook.ts checks it) moves a recording on:
 * egress active -> active; complete -> ready with its file; failed or aborted -> failed. Each change appends one
 * system event (actor ""); a repeat or an unknown egress changes nothing. The room is the call id: the one lookup
 * that finds the org (call ids are random and never reused).
 */

type Outcome =
  { status: 'active' } | { status: 'ready'; location: string | null; size: number | null; durationMs: number | null } | { status: 'failed'; failure: string };

function outcomeOf({ EgressStatus }: typeof import('livekit-server-sdk'), info: EgressInfo): Outcome | null {
  const file = info.fileResults[0] ?? (info.result.case === 'file' ? info.result.value : undefined);
  switch (info.status) {
    case EgressStatus.EGRESS_ACTIVE:
      return { status: 'active' };
    case EgressStatus.EGRESS_COMPLETE:
    case EgressStatus.EGRESS_LIMIT_REACHED:
      if (file) {
        return {
          status: 'ready',
          location: file.location || file.filename || null,
          size: file.size ? Number(file.size) : null,
          durationMs: file.duration ? Math.round(Number(file.duration) / 1e6) : null,
        };
      }
      return { status: 'failed', failure: info.error || 'the egress ended without a file' };
    case EgressStatus.EGRESS_FAILED:
    case EgressStatus.EGRESS_ABORTED:
      return { status: 'failed', failure: (info.error || EgressStatus[info.status]).slice(0, 500) };
    default:
      return null;
  }
}

/** Apply one webhook event; answers what it did (for the route's log and tests). */
export async function applyLivekitWebhook(deps: Deps, event: WebhookEvent): Promise<'applied' | 'ignored'> {
  const info = event.egressInfo;
  if (!info || !event.event.startsWith('egress_')) return 'ignored';
  // The SDK is loaded here, not with the server: an event reaches this only from a configured LiveKit.
  const outcome = outcomeOf(await import('livekit-server-sdk'), info);
  if (!outcome) return 'ignored';
  const [call] = await deps.db.query<{ org_id: string; call_id: string }>('SELECT org_id, call_id FROM calls WHERE call_id = $1', [info.roomName]);
  if (!call) return 'ignored';
  const orgId = call.org_id;
  let seq: number | null = null;
  await deps.db.tx(async (q) => {
    // By its egress id; else the recording still waiting for one (the webhook beat the egress call's answer).
    const [r] = await q.query<{ recording_id: string; status: string; egress_id: string | null }>(
      `SELECT recording_id, status, egress_id FROM call_recordings
        WHERE org_id = $1 AND call_id = $2 AND (egress_id = $3 OR (egress_id IS NULL AND status IN ('starting', 'stopped')))
        ORDER BY egress_id IS NULL, started_at DESC LIMIT 1 FOR UPDATE`,
      [orgId, call.call_id, info.egressId],
    );
    if (!r || r.status === 'ready' || r.status === 'failed') return;
    if (outcome.status === 'active' && r.status !== 'starting') return;
    const base = { callId: call.call_id, recordingId: r.recording_id };
    const at = new Date().toISOString();
    if (outcome.status === 'active') {
      await q.query(`UPDATE call_recordings SET status = 'active', egress_id = $3 WHERE org_id = $1 AND recording_id = $2`, [
        orgId,
        r.recording_id,
        info.egressId,
      ]);
      seq = (
        await appendEvent(q, orgId, {
          family: 'calling',
          kind: 'calling.recording.activate',
          entityId: call.call_id,
          actor: '',
          payload: { ...base, status: 'active' },
        })
      ).seq;
    } else if (outcome.status === 'ready') {
      await q.query(
        `UPDATE call_recordings SET status = 'ready', egress_id = $3, ready_at = $4, stopped_at = coalesce(stopped_at, $4), file_location = $5, file_size = $6, duration_ms = $7
          WHERE org_id = $1 AND recording_id = $2`,
        [orgId, r.recording_id, info.egressId, at, outcome.location, outcome.size, outcome.durationMs],
      );
      const payload = { ...base, status: 'ready', sizeBytes: outcome.size, durationMs: outcome.durationMs };
      seq = (await appendEvent(q, orgId, { family: 'calling', kind: 'calling.recording.complete', entityId: call.call_id, actor: '', payload })).seq;
    } else {
      await q.query(
        `UPDATE call_recordings SET status = 'failed', egress_id = $3, stopped_at = coalesce(stopped_at, $4), failure = $5 WHERE org_id = $1 AND recording_id = $2`,
        [orgId, r.recording_id, info.egressId, at, outcome.failure],
      );
      seq = (
        await appendEvent(q, orgId, {
          family: 'calling',
          kind: 'calling.recording.fail',
          entityId: call.call_id,
          actor: '',
          payload: { ...base, status: 'failed' },
        })
      ).seq;
    }
  });
  if (seq === null) return 'ignored';
  deps.stream.appended(orgId, seq);
  return 'applied';
}
