import { INBOX_KIND_CAP, INBOX_KINDS, inboxReadContracts } from '../../protocol/reads/inbox.js';
import { reads, type Family } from '../core/family.js';
import { readHandler } from '../core/handler.js';
import { earliest, type InboxEntry } from './waiting.js';

export { earliest, type InboxEntry, type Waiting, type WaitingQuery, type WaitingSource } from './waiting.js';

/*
 * GET /api/v1/org/inbox: what waits on the caller now, gathered from every family's `waiting` contribution (never
 * their tables): approvals it may decide, decisions awaiting its signature or decision, offers to it, escalations
 * assigned to it as of the clock, introduction requests to it. Merged newest first; counts per kind. Nothing here
 * is written: the gateway's ETag makes an unchanged answer a 304.
 */

type Kind = (typeof INBOX_KINDS)[number];

export const inbox = readHandler(inboxReadContracts['org/inbox'], async (ctx, query) => {
  const w = { q: ctx.q, orgId: ctx.orgId, me: ctx.principal, now: ctx.deps.clock.now(), cap: INBOX_KIND_CAP };
  const answers = [];
  for (const { value: source } of ctx.deps.families.contributions('waiting')) answers.push(await source(w));
  const all: InboxEntry[] = answers.flatMap((a) => a.items);
  const counts = Object.fromEntries(INBOX_KINDS.map((k) => [k, 0])) as Record<Kind, number>;
  for (const item of all) counts[item.kind]++;
  const items = all.sort((a, b) => (a.since === b.since ? (a.id < b.id ? 1 : -1) : a.since < b.since ? 1 : -1)).slice(0, query.limit);
  return {
    items,
    counts,
    total: all.length,
    truncated: all.length > items.length || INBOX_KINDS.some((k) => counts[k] >= INBOX_KIND_CAP),
    nextChangeAt: earliest(answers.map((a) => a.nextChangeAt)),
  };
});

export const inboxReads = reads({ 'org/inbox': inbox });

/** The inbox family, as domain/deployed.ts lists it. */
export const inboxFamily: Family = { name: 'inbox', reads: inboxReads };
