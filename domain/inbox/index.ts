import type { z } from 'zod';
import { INBOX_KIND_CAP, INBOX_KINDS, inboxReadContracts, type InboxItem } from '../../protocol/reads/inbox.js';
import { reads, type Family } from '../core/family.js';
import { readHandler } from '../core/handler.js';
import { approvalsAwaiting } from '../approval/waiting.js';
import { awaitingMe } from '../decision/waiting.js';
import { pendingRequestsTo } from '../directory/awareness-requests.js';
import { escalationsWaitingOn, levelReachedAt, toEscalation } from '../escalation/model.js';
import { offersTo } from '../handoff/model.js';

/*
 * GET /api/v1/org/inbox: what waits on the caller now, gathered from each family's own "waiting on" export (never
 * their tables): approvals it may decide, decisions awaiting its signature or decision, offers to it, escalations
 * assigned to it as of the clock, introduction requests to it. Merged newest first; counts per kind. Nothing here
 * is written: the gateway's ETag makes an unchanged answer a 304.
 */

type Item = z.output<typeof InboxItem>;
type Kind = (typeof INBOX_KINDS)[number];

const earliest = (times: (string | null | undefined)[]): string | null =>
  times.filter((t): t is string => typeof t === 'string').sort()[0] ?? null;

export const inbox = readHandler(inboxReadContracts['org/inbox'], async (ctx, query) => {
  const { q, orgId, principal: me } = ctx;
  const now = ctx.deps.clock.now();
  const cap = INBOX_KIND_CAP;

  const approvals = (await approvalsAwaiting(q, orgId, me, cap)).map(
    (a): Item => ({
      kind: 'approval',
      id: a.approval_id,
      title: a.summary,
      since: a.requested_at,
      from: a.requested_by,
      link: { method: 'approval.resolve', params: { approvalId: a.approval_id } },
      actionClass: a.action_class,
      expiresAt: a.expires_at,
    }),
  );

  const decisions = (await awaitingMe(q, orgId, me)).slice(0, cap).map(
    (d): Item => ({
      kind: d.why,
      id: d.id,
      title: d.title,
      since: d.since,
      from: d.driver,
      link: { method: d.why === 'signature' ? 'decision.sign' : 'decision.adopt', params: { decisionId: d.id, version: d.version } },
      number: d.number,
      version: d.version,
      area: d.area,
    }),
  );

  const offers = (await offersTo(q, orgId, me.id, now, cap)).map(
    (h): Item => ({
      kind: 'handoff',
      id: h.handoff_id,
      title: h.brief,
      since: h.offered_at,
      from: h.from_principal,
      link: { method: 'handoff.accept', params: { handoffId: h.handoff_id } },
      subject: { kind: h.subject_kind, id: h.subject_id },
      expiresAt: h.expires_at,
    }),
  );

  const escalated = await escalationsWaitingOn(q, orgId, me.id, now, cap);
  const escalations = escalated.assigned.map((r): Item => {
    const view = toEscalation(r, now);
    return {
      kind: 'escalation',
      id: view.id,
      title: view.title,
      since: levelReachedAt(r, now),
      from: view.raisedBy,
      link: { method: 'escalation.resolve', params: { escalationId: view.id } },
      reason: view.reason,
      severity: view.severity,
      level: view.level,
      subject: view.subject,
      nextLevelAt: view.nextLevelAt,
    };
  });

  // Introductions are directory data: shown to a key that may read the directory, as listAwarenessRequests is.
  const requests = me.scopes.has('directory.read') ? await pendingRequestsTo(q, orgId, me.id, cap) : [];
  const introductions = requests.map(
    (r): Item => ({
      kind: 'introduction',
      id: r.id,
      title: r.party.displayName,
      since: r.createdAt,
      from: r.requesterId,
      link: { method: 'directory.resolveAwarenessRequest', params: { requestId: r.id } },
      requestKind: r.kind,
      party: { id: r.party.id, kind: r.party.kind },
    }),
  );

  const all = [...approvals, ...decisions, ...offers, ...escalations, ...introductions];
  const counts = Object.fromEntries(INBOX_KINDS.map((k) => [k, 0])) as Record<Kind, number>;
  for (const item of all) counts[item.kind]++;
  const items = all.sort((a, b) => (a.since === b.since ? (a.id < b.id ? 1 : -1) : a.since < b.since ? 1 : -1)).slice(0, query.limit);
  const nextChangeAt = earliest([
    ...approvals.map((i) => (i.kind === 'approval' ? i.expiresAt : null)),
    ...offers.map((i) => (i.kind === 'handoff' ? i.expiresAt : null)),
    ...escalations.map((i) => (i.kind === 'escalation' ? i.nextLevelAt : null)),
    escalated.nextArrivalAt,
  ]);
  return {
    items,
    counts,
    total: all.length,
    truncated: all.length > items.length || INBOX_KINDS.some((k) => counts[k] >= cap),
    nextChangeAt,
  };
});

export const inboxReads = reads({ 'org/inbox': inbox });

/** The inbox family, as domain/deployed.ts lists it. */
export const inboxFamily: Family = { name: 'inbox', reads: inboxReads };
