import { randomUUID } from 'node:crypto';
import { ApiError } from '../../../protocol/errors.js';
import { METHODS } from '../../../protocol/registry.js';
import type { Queryable } from '../../../db/types.js';
import type { Principal } from '../../core/auth.js';
import type { Deps } from '../../core/deps.js';
import type { PrepareCtx } from '../../core/handler.js';
import { defineJob } from '../../jobs/define.js';
import { passEvent, passOver, storePass, type Pass } from './triage-pass.js';

/*
 * The background triage pass (decision 0084): where the operator turned it on for a mailbox (mailbox-triage --as, an
 * agent seat of it), mail landing in the Inbox schedules one pass `delaySeconds` later, one per mailbox at a time:
 * the job's `stately` policy keeps one waiting beside one running, so the rest of a burst joins the pass already
 * waiting (100 messages, one pass). The pass is email.triageNow's: the model is asked in prepare, outside any
 * transaction, reading as the seat (deps.readAs: its membership, scope email.read, the org's AI budget and audit);
 * run stores the verdicts and appends one `email.mailbox.triage` (actor "", `as` the seat, `background: true`). A
 * pass that stores nothing appends nothing. It never moves mail and assigns nobody.
 */

export const TRIAGE_JOB = 'email.triagePass';

export interface EmailTriageConfig {
  /** A pass runs this long after the mail that scheduled it (30 s): mail arriving meanwhile joins it. */
  delaySeconds: number;
  /** Threads one pass triages at most (50); when more wait, the next pass follows at once. */
  limit: number;
}

declare module '../../core/deps.js' {
  interface FamilyConfig {
    /** The background triage pass: its delay after mail arrives and its size. */
    emailTriage: EmailTriageConfig;
  }
}

export const TRIAGE_DEFAULTS: EmailTriageConfig = { delaySeconds: 30, limit: 50 };

/** The scope a pass reads with: reads only; what it stores, the job stores. */
const READ_SCOPES: ReadonlySet<string> = new Set(['email.read']);

/** The agent seat a mailbox's pass reads as, while it is on and the seat is an active agent member; else null. */
async function seatOf(deps: Deps, orgId: string, mailboxId: string): Promise<Principal | null> {
  const [row] = await deps.db.query<{ id: string; name: string; slug: string }>(
    `SELECT p.principal_id AS id, p.name, o.slug FROM email_mailboxes b
       JOIN email_mailbox_members mm ON mm.org_id = b.org_id AND mm.mailbox_id = b.mailbox_id AND mm.principal_id = b.triage_as AND mm.role = 'agent'
       JOIN principals p ON p.org_id = b.org_id AND p.principal_id = b.triage_as AND p.kind = 'agent' AND p.status = 'active'
       JOIN orgs o ON o.org_id = b.org_id AND o.deleted_at IS NULL
      WHERE b.org_id = $1 AND b.mailbox_id = $2`,
    [orgId, mailboxId],
  );
  if (!row) return null;
  return { orgId, orgSlug: row.slug, keyId: '', id: row.id, kind: 'agent', name: row.name, tier: null, scopes: READ_SCOPES, governanceReady: false };
}

interface Prepared {
  as: string;
  pass: Pass;
}

type TriageData = { mailboxId: string };

const pending = (deps: Pick<Deps, 'jobs'>, orgId: string, mailboxId: string, delaySeconds: number): ReturnType<Deps['jobs']['check']> =>
  deps.jobs.check(TRIAGE_JOB, { mailboxId }, { singletonKey: `${orgId}:${mailboxId}`, ...(delaySeconds > 0 ? { delaySeconds } : {}) });

export const triagePass = defineJob<TriageData, Prepared | null>({
  name: TRIAGE_JOB,
  policy: 'stately',
  retryLimit: 2,
  retryDelaySeconds: 60,
  retryBackoff: true,
  // Up to `limit` model calls, each bounded by the gateway's own timeout.
  expireInSeconds: 900,
  events: ['email.mailbox.triage'],
  async prepare(deps, orgId, data) {
    const seat = await seatOf(deps, orgId, data.mailboxId);
    if (!seat) return null; // turned off meanwhile, or the seat left: nothing to do
    const requestId = randomUUID();
    const ctx: PrepareCtx = {
      db: deps.db,
      principal: seat,
      orgId,
      method: METHODS.get('email.triageNow')!,
      requestId,
      deps,
      readAs: (method, params) => deps.readAs(seat, method, params, requestId),
    };
    try {
      return { as: seat.id, pass: await passOver(ctx, data.mailboxId, deps.config.emailTriage.limit) };
    } catch (err) {
      // The org's AI budget is spent before the first thread: the pass that the next mail schedules tries again.
      if (err instanceof ApiError && err.code === 'RATE_LIMITED') {
        deps.log.info({ job: TRIAGE_JOB, orgId, mailboxId: data.mailboxId }, 'email: background triage skipped: the AI budget is spent');
        return null;
      }
      throw err;
    }
  },
  async run(ctx, data, prepared) {
    if (!prepared) return;
    const stored = await storePass(ctx.q, ctx.orgId, data.mailboxId, prepared.pass);
    if (stored.triaged === 0) return;
    // More wait than one pass takes: the next follows at once (each pass stores at least one thread, so it ends).
    if (prepared.pass.remaining && prepared.pass.stoppedBy === null) {
      await ctx.deps.jobs.enqueue(ctx.q, ctx.orgId, ctx.causeSeq, [pending(ctx.deps, ctx.orgId, data.mailboxId, 0)]);
    }
    await ctx.emit('email.mailbox.triage', data.mailboxId, { ...passEvent(data.mailboxId, prepared.pass, stored), as: prepared.as, background: true });
  },
});

/** What scheduling needs of the runtime. */
export type TriageDeps = Pick<Deps, 'jobs' | 'config'>;

/**
 * After mail was filed (in q's transaction, after its events): a pass for each mailbox that got mail in its Inbox and
 * has the background triage on (`on`, read with the recipients: `triaging`: the pass checks again when it runs), unless
 * one is waiting already. No statement at all when none has it on: the org's ledger lock is held from the events on.
 */
export async function triageAfter(
  q: Queryable,
  deps: TriageDeps,
  orgId: string,
  filed: readonly { mailboxId: string; folderRole: string; seq: number }[],
  on: ReadonlySet<string>,
): Promise<void> {
  const inbox = filed.filter((f) => f.folderRole === 'inbox' && on.has(f.mailboxId));
  for (const mailboxId of new Set(inbox.map((f) => f.mailboxId))) {
    const cause = Math.max(...inbox.filter((f) => f.mailboxId === mailboxId).map((f) => f.seq));
    await deps.jobs.enqueue(q, orgId, cause, [pending(deps, orgId, mailboxId, deps.config.emailTriage.delaySeconds)]);
  }
}

/** The mailboxes among `boxes` with the background triage on. */
export const triaging = (boxes: readonly { mailbox_id: string; triage_as: string | null }[]): ReadonlySet<string> =>
  new Set(boxes.filter((b) => b.triage_as !== null).map((b) => b.mailbox_id));
