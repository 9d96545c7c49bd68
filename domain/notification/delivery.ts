import type { Queryable } from '../../db/types.js';
import type { Delivery } from '../../mail/types.js';
import { currentKind } from '../../protocol/events.js';
import { readEvents } from '../../ledger/read.js';
import type { Deps } from '../core/deps.js';
import { getMembers, type Member } from '../people/index.js';
import { LEDGER_APPENDED } from '../stream/hub.js';
import { composeMail, type Item } from './mail.js';
import { effectivePreferences } from './preferences.js';
import { candidatesFor, lookupsFor, type Candidate } from './routes.js';
import { afterQuietHours, nextDigest } from './schedule.js';

/*
 * Notification delivery, after commit and outside every call's transaction. Two steps, each safe in several processes:
 *  decide: per org, read ledger events after the org's cursor, decide who is told what and when (preferences,
 *          quiet hours, digest time), and write those notifications in the same transaction that moves the
 *          cursor: a restart resumes exactly there, nothing is decided twice or skipped.
 *  send:   claim due notifications for a lease, mail them through the one mail service (instant ones one by one,
 *          a recipient's due digest items in one mail), then mark them. A crash between the relay's acceptance
 *          and the mark sends again after the lease: at least once, never lost.
 * Humans only: agents read the stream (GET /api/v1/org/stream) and are never mailed.
 */

export interface DeliveryOptions {
  /** Events read per org per transaction, and notifications claimed per send. */
  batch?: number;
  /** How long a claimed notification is held by its sender before another may try it (also the retry delay). */
  leaseMs?: number;
  /** Tries before a notification that keeps failing temporarily is given up (status failed). */
  maxAttempts?: number;
  /** The clock quiet hours, digests and leases are counted on (tests move it). */
  now?: () => Date;
}

interface Claimed {
  org_id: string;
  seq: number | string;
  recipient_id: string;
  type: Item['type'];
  mode: 'instant' | 'digest';
  entity_id: string;
  attempts: number;
}

type Outcome = 'sent' | 'outboxed' | 'failed' | 'dropped' | 'retry';

const KEY = 'org_id, seq, recipient_id, type';

/** Who may be mailed a notification of this type: an active human with an address; security reaches the suspended too. */
function mayHear(m: Member | undefined, type: Item['type']): m is Member & { email: string } {
  if (!m || m.kind !== 'human' || !m.email || m.status === 'archived') return false;
  return m.status === 'active' || type === 'security';
}

/** One recipient's fate from the mail service's answer (one address per mail). */
function outcomeOf(d: Delivery, address: string): Outcome {
  if (d.status === 'outboxed') return 'outboxed';
  const refusal = d.refusals.find((r) => r.address.toLowerCase() === address.toLowerCase());
  if (refusal) return refusal.temporary ? 'retry' : 'failed';
  if (d.status === 'sent' || d.status === 'internal') return 'sent';
  return d.temporary ? 'retry' : 'failed';
}

export class NotificationDelivery {
  private readonly batch: number;
  private readonly leaseMs: number;
  private readonly maxAttempts: number;
  private readonly now: () => Date;
  /** Set by halt(): a running pass ends after its current step (close does not wait for a long catch-up). */
  private halted = false;

  constructor(
    private readonly deps: Deps,
    opts: DeliveryOptions = {},
  ) {
    this.batch = opts.batch ?? 200;
    this.leaseMs = opts.leaseMs ?? 5 * 60_000;
    this.maxAttempts = opts.maxAttempts ?? 5;
    this.now = opts.now ?? (() => new Date());
  }

  halt(): void {
    this.halted = true;
  }

  /** Decide for every org with new events, then send what is due. */
  async runOnce(): Promise<{ decided: number; claimed: number }> {
    let decided = 0;
    // One join with the ledger's heads (an exception the table-owners test lists, decision 0085): only orgs with
    // news come back, where asking the ledger through a function would ship every org's cursor each round.
    const orgs = await this.deps.db.query<{ org_id: string }>(
      `SELECT h.org_id FROM ledger_heads h LEFT JOIN notification_cursors c ON c.org_id = h.org_id WHERE h.seq > coalesce(c.seq, 0)`,
    );
    for (const { org_id: orgId } of orgs) {
      while (!this.halted) {
        const step = await this.decide(orgId);
        decided += step.notifications;
        if (step.events < this.batch) break;
      }
    }
    let claimed = 0;
    while (!this.halted) {
      const n = await this.sendDue();
      claimed += n;
      if (n === 0) break;
    }
    return { decided, claimed };
  }

  /** One batch of one org's events: notifications written and the cursor moved, in one transaction. */
  async decide(orgId: string): Promise<{ events: number; notifications: number }> {
    const now = this.now();
    return this.deps.db.tx(async (q) => {
      await q.query(`INSERT INTO notification_cursors (org_id) VALUES ($1) ON CONFLICT DO NOTHING`, [orgId]);
      // Another process deciding for this org has the row: leave the org to it.
      const [cursor] = await q.query<{ seq: number | string }>(`SELECT seq FROM notification_cursors WHERE org_id = $1 FOR UPDATE SKIP LOCKED`, [orgId]);
      if (!cursor) return { events: 0, notifications: 0 };
      const stored = await readEvents(q, orgId, Number(cursor.seq), this.batch);
      // Routes name kinds by their current names (protocol/events.ts): an event appended before a rename reads as its new name.
      const rows = stored.map((r) => ({ seq: r.seq, kind: currentKind(r.family, r.kind), entity_id: r.entity_id, actor: r.actor, payload: r.payload }));
      if (rows.length === 0) return { events: 0, notifications: 0 };
      const wanted: (Candidate & { seq: number })[] = [];
      const payloads = rows.map((r) => JSON.parse(r.payload) as Record<string, unknown>);
      const lookups = await lookupsFor(q, orgId, rows, payloads);
      for (const [i, row] of rows.entries()) {
        const event = { ...row, seq: Number(row.seq), payload: payloads[i] };
        for (const c of await candidatesFor(q, orgId, event, lookups)) {
          // Nobody is told of their own act, except about their own account's security (as mail providers do).
          if (c.recipientId !== event.actor || c.type === 'security') wanted.push({ ...c, seq: event.seq });
        }
      }
      const planned = await this.plan(q, orgId, wanted, now);
      if (planned.length) {
        await q.query(
          `INSERT INTO notifications (org_id, seq, recipient_id, type, mode, entity_id, not_before)
           SELECT $1, t.seq, t.recipient, t.type, t.mode, t.entity, t.not_before
             FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[]) AS t(seq, recipient, type, mode, entity, not_before)
           ON CONFLICT DO NOTHING`,
          [orgId, ...(['seq', 'recipientId', 'type', 'mode', 'entityId', 'notBefore'] as const).map((k) => planned.map((p) => p[k]))],
        );
      }
      await q.query(`UPDATE notification_cursors SET seq = $2, updated_at = now() WHERE org_id = $1`, [orgId, rows[rows.length - 1].seq]);
      return { events: rows.length, notifications: planned.length };
    });
  }

  /** Preferences applied: who is mailed, instant or digest, and from when. */
  private async plan(q: Queryable, orgId: string, wanted: readonly (Candidate & { seq: number })[], now: Date) {
    if (wanted.length === 0) return [];
    const ids = [...new Set(wanted.map((w) => w.recipientId))];
    const members = new Map((await getMembers(q, orgId, ids)).map((m) => [m.id, m]));
    const prefs = await effectivePreferences(q, orgId, ids);
    return wanted.flatMap((w) => {
      const m = members.get(w.recipientId);
      if (!mayHear(m, w.type)) return [];
      const pref = prefs.get(m.id)!;
      const mode = pref.events[w.type];
      if (mode === 'off') return [];
      const notBefore =
        mode === 'digest'
          ? nextDigest(now, pref.digest, pref.quietHours?.timezone ?? m.timezone ?? 'UTC')
          : w.type === 'security'
            ? now // a security notice is not held back by quiet hours
            : afterQuietHours(now, pref.quietHours);
      return [{ ...w, mode, notBefore: notBefore.toISOString() }];
    });
  }

  /** Claim due notifications (a batch) for a lease, mail them, mark them. Returns how many were claimed. */
  async sendDue(): Promise<number> {
    const now = this.now();
    const claimed = await this.deps.db.tx((q) =>
      q.query<Claimed>(
        `UPDATE notifications SET attempts = attempts + 1, not_before = $2::timestamptz + make_interval(secs => $3::double precision / 1000)
          WHERE (${KEY}) IN (SELECT ${KEY} FROM notifications WHERE status = 'pending' AND not_before <= $2
                            ORDER BY not_before, org_id, recipient_id LIMIT $1 FOR UPDATE SKIP LOCKED)
          RETURNING org_id, seq, recipient_id, type, mode, entity_id, attempts`,
        [this.batch, now.toISOString(), this.leaseMs],
      ),
    );
    // Instant ones one mail each; a recipient's due digest items in one mail, in ledger order.
    const mails = new Map<string, Claimed[]>();
    for (const c of claimed.sort((a, b) => Number(a.seq) - Number(b.seq))) {
      const key = c.mode === 'digest' ? `${c.org_id}\n${c.recipient_id}\ndigest` : `${c.org_id}\n${c.recipient_id}\n${c.seq}\n${c.type}`;
      mails.set(key, [...(mails.get(key) ?? []), c]);
    }
    for (const group of mails.values()) await this.deliver(group);
    return claimed.length;
  }

  private async deliver(group: Claimed[]): Promise<void> {
    const { org_id: orgId, recipient_id: recipientId, mode } = group[0];
    const ids = { orgId, recipientId, notifications: group.length, mode };
    const fate = new Map<Claimed, Outcome>();
    try {
      // Asked again at send time: a digest waits up to a week, and the member may have left or turned the type off.
      const [to] = await getMembers(this.deps.db, orgId, [recipientId]);
      const pref = (await effectivePreferences(this.deps.db, orgId, [recipientId])).get(recipientId)!;
      const going = group.filter((c) => mayHear(to, c.type) && pref.events[c.type] !== 'off');
      for (const c of group) if (!going.includes(c)) fate.set(c, 'dropped');
      if (going.length && to?.email) {
        const items = going.map((c) => ({ seq: Number(c.seq), type: c.type, entityId: c.entity_id }));
        const mail = await composeMail(this.deps.db, this.deps, orgId, to, items, mode === 'digest');
        const outcome = outcomeOf(await this.deps.mail.send(mail), to.email);
        for (const c of going) fate.set(c, outcome);
      }
    } catch (err) {
      // The error's name only: a message may quote an address or a database value.
      this.deps.log.warn({ ...ids, err: { name: (err as Error).name } }, 'notification not sent; it is tried again after its lease');
      for (const c of group) if (!fate.has(c)) fate.set(c, 'retry');
    }
    for (const [c, outcome] of fate) if (outcome === 'retry' && c.attempts >= this.maxAttempts) fate.set(c, 'failed');
    const final = [...fate].filter(([, outcome]) => outcome !== 'retry');
    if (final.length) {
      await this.deps.db.query(
        `UPDATE notifications n SET status = t.status, sent_at = CASE WHEN t.status = 'sent' THEN now() END
           FROM unnest($3::bigint[], $4::text[], $5::text[]) AS t(seq, type, status)
          WHERE n.org_id = $1 AND n.recipient_id = $2 AND n.seq = t.seq AND n.type = t.type AND n.status = 'pending'`,
        [orgId, recipientId, final.map(([c]) => c.seq), final.map(([c]) => c.type), final.map(([, o]) => o)],
      );
    }
    // Ids, counts and statuses only: never the address or the words.
    const statuses = [...new Set(fate.values())].filter((o) => o !== 'sent' && o !== 'dropped');
    if (statuses.length) this.deps.log.warn({ ...ids, statuses }, 'notification mail not delivered');
  }
}

export interface DeliveryLoopOptions extends DeliveryOptions {
  /** Digests and quiet hours come due with time alone: a pass runs at least this often (NOTIFY_POLL_MS). */
  pollMs: number;
  /** After an append is announced, wait this long so a burst of commits makes one pass. */
  debounceMs?: number;
}

export interface DeliveryLoop {
  /** Run a pass soon (after the debounce). */
  wake(): void;
  /** Stop the timers and wait for a running pass. */
  stop(): Promise<void>;
}

/**
 * Run delivery in this process (the server's worker processes do; several may): a pass every pollMs, and one soon
 * after any process announces a commit (the stream's `ledger.appended` over LISTEN/NOTIFY, on PostgreSQL; embedded
 * PGlite is one process that announces nothing, so there the poll alone drives it). Passes never overlap here;
 * across processes the cursor's row lock and the send lease keep each notification to one mail.
 */
export function startDelivery(deps: Deps, opts: DeliveryLoopOptions): DeliveryLoop {
  const delivery = new NotificationDelivery(deps, opts);
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  let soon: NodeJS.Timeout | undefined;
  const pass = () => {
    if (stopped) return;
    if (running) {
      again = true; // a commit during a pass: look once more after it
      return;
    }
    running = (async () => {
      do {
        again = false;
        await delivery
          .runOnce()
          .catch((err: Error) => deps.log.warn({ err: { name: err.name } }, 'notification pass failed; the next one resumes from the cursor'));
      } while (again && !stopped);
    })().finally(() => (running = undefined));
  };
  const wake = () => {
    if (stopped || soon) return;
    soon = setTimeout(() => {
      soon = undefined;
      pass();
    }, opts.debounceMs ?? 50);
    soon.unref();
  };
  const unsubscribe = deps.notifier.subscribe(LEDGER_APPENDED, wake, wake);
  const timer = setInterval(pass, opts.pollMs);
  timer.unref();
  pass(); // what was decided or due before this process started
  return {
    wake,
    async stop() {
      stopped = true;
      delivery.halt();
      unsubscribe();
      clearInterval(timer);
      if (soon) clearTimeout(soon);
      await running;
    },
  };
}
