import { earliest, type InboxEntry, type WaitingSource } from '../../inbox/index.js';
import { offersTo } from './model.js';

/** The handoff family's part of GET /org/inbox: open offers to the caller, until they expire. */
export const handoffWaiting: WaitingSource = async ({ q, orgId, me, now, cap }) => {
  const rows = await offersTo(q, orgId, me.id, now, cap);
  const items = rows.map((h): InboxEntry => ({
    kind: 'handoff',
    id: h.handoff_id,
    title: h.brief,
    since: h.offered_at,
    from: h.from_principal,
    link: { method: 'handoff.accept', params: { handoffId: h.handoff_id } },
    subject: { kind: h.subject_kind, id: h.subject_id },
    expiresAt: h.expires_at,
  }));
  return { items, nextChangeAt: earliest(rows.map((h) => h.expires_at)) };
};
