import type { Db } from '../../db/types.js';
import { NOTIFY_CHANNEL, notifyMessage, type Notifier } from '../../db/notifier.js';
import { eventJson, readEvents, type StoredEventRow } from '../../ledger/read.js';

/** Notifier topic of committed appends ({orgId, seq}): the wake-up of the other processes' streams. */
export const LEDGER_APPENDED = 'ledger.appended';

/** One ledger event as the stream hands it on: the row and its JSON text (as GET /events shows it), built once. */
export interface FeedEvent {
  readonly row: StoredEventRow;
  readonly json: string;
}

export interface StreamOptions {
  /** The org's head is polled this often, so a lost notification delays a frame but never loses it. */
  pollMs: number;
  /** Events read per query, when catching up or when a wake-up finds many. */
  pageSize?: number;
  onError?: (err: Error, what: string) => void;
}

export interface Subscription {
  /** Events up to this seq were handed on (or skipped by nothing: the seq the subscriber is at). */
  readonly cursor: number;
  close(): void;
}

interface Subscriber {
  cursor: number;
  /** Catching up from the ledger on its own: the org's batches are not for it yet. */
  live: boolean;
  closed: boolean;
  deliver(events: readonly FeedEvent[]): void | Promise<void>;
}

/** One org with open subscriptions: one reader, whatever their number. */
interface Feed {
  orgId: string;
  /** The last seq read and handed on. */
  seq: number;
  subs: Set<Subscriber>;
  reading: boolean;
  /** Woken without a seq (a resync, a feed opening) while reading: read once more after. */
  again: boolean;
  /** The highest seq announced while reading: read on until it is read, and no further. */
  wanted: number;
}

/**
 * The live ledger of every org with open streams, for this process. Per org one reader: woken at once by appended()
 * after a commit in this process, by the NOTIFY appended() sends after commit from any other process, by the
 * notifier's resync after a lost connection, and by a poll of the heads every pollMs (appends that nobody announces,
 * lost notifications); it reads the new events once and hands them to every subscriber of the org. Events of one
 * org commit in seq order (the head row's lock), so reading `seq > last` never skips one that commits later.
 *
 * The NOTIFY is sent after commit, not in the append's transaction: PostgreSQL serialises the commits of every
 * transaction that notifies behind one database-wide lock, which cost a third of createTask's throughput.
 */
export class StreamHub {
  private readonly feeds = new Map<string, Feed>();
  private readonly opening = new Map<string, Promise<Feed>>();
  private readonly stopNotify: () => void;
  private readonly poll: NodeJS.Timeout;
  private polling = false;
  private closed = false;
  /** Appends committed here, not yet announced to the other processes: org -> highest seq. */
  private readonly unsent = new Map<string, number>();
  private sending = false;
  /** Reads of new events made by feeds (not catch-ups): what 1,000 streams of one org cost per wake. */
  feedReads = 0;

  constructor(
    private readonly db: Db,
    notifier: Notifier,
    private readonly opts: StreamOptions,
  ) {
    this.stopNotify = notifier.subscribe(
      LEDGER_APPENDED,
      (m) => {
        const feed = this.feeds.get(String(m.orgId));
        if (feed) this.wake(feed, Number(m.seq));
      },
      () => {
        for (const feed of this.feeds.values()) this.wake(feed);
      },
    );
    this.poll = setInterval(() => void this.pollHeads(), opts.pollMs);
    this.poll.unref();
  }

  private get pageSize(): number {
    return this.opts.pageSize ?? 500;
  }

  /**
   * Hand `deliver` every event of the org after `after` (default: the head now, i.e. only what comes next), in seq
   * order, each exactly once: first the backlog from the ledger, then the org's live batches. deliver may return a
   * promise while catching up (the backlog waits for it: a slow socket slows the catch-up, not the feed); live
   * batches never wait. Resolves once the subscription is in place: anything committed later is delivered.
   */
  async subscribe(orgId: string, after: number | undefined, deliver: Subscriber['deliver']): Promise<Subscription> {
    if (this.closed) throw new Error('the stream hub is closed');
    const feed = await this.feed(orgId);
    const sub: Subscriber = { cursor: after ?? feed.seq, live: false, closed: false, deliver };
    feed.subs.add(sub);
    const subscription: Subscription = {
      get cursor() {
        return sub.cursor;
      },
      close: () => this.unsubscribe(feed, sub),
    };
    try {
      // Catch up from the ledger until at the feed's seq; the check and going live happen with no await between,
      // so the next live batch starts right after what was read here: no gap, no duplicate.
      while (!sub.closed && sub.cursor < feed.seq) {
        const rows = await readEvents(this.db, orgId, sub.cursor, Math.min(this.pageSize, feed.seq - sub.cursor));
        if (rows.length === 0) break;
        sub.cursor = rows[rows.length - 1].seq;
        await deliver(rows.map(toFeedEvent));
      }
      sub.live = true;
    } catch (err) {
      this.unsubscribe(feed, sub);
      throw err;
    }
    return subscription;
  }

  /**
   * An append of the org committed in this process (the pipeline calls it after every call's commit): wake this
   * process's reader now, and the other processes through one NOTIFY statement per turn of the event loop, however
   * many appends it carries. Never throws; a NOTIFY that fails only leaves the others to their poll.
   */
  appended(orgId: string, seq: number): void {
    if (this.closed) return;
    const feed = this.feeds.get(orgId);
    if (feed) this.wake(feed, seq);
    // Embedded PGlite is one process: there is nobody else to tell, and its one connection has better uses.
    if (this.db.kind === 'pglite') return;
    if (seq > (this.unsent.get(orgId) ?? 0)) this.unsent.set(orgId, seq);
    if (!this.sending) {
      this.sending = true;
      setImmediate(() => void this.announce());
    }
  }

  private async announce(): Promise<void> {
    while (this.unsent.size > 0 && !this.closed) {
      const messages = [...this.unsent].map(([orgId, seq]) => notifyMessage(LEDGER_APPENDED, { orgId, seq }));
      this.unsent.clear();
      try {
        // Its own short transaction; a wake-up lost in a crash costs nothing (the poll), so it need not wait for the disk.
        await this.db.query(`SELECT pg_notify($1, m), set_config('synchronous_commit', 'off', true) FROM unnest($2::text[]) AS m`, [NOTIFY_CHANNEL, messages]);
      } catch (err) {
        this.opts.onError?.(err as Error, 'stream: announcing appends failed (other processes see them at their next poll)');
      }
    }
    this.sending = false;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.poll);
    this.stopNotify();
    for (const feed of this.feeds.values()) feed.subs.clear();
    this.feeds.clear();
  }

  private async feed(orgId: string): Promise<Feed> {
    const open = this.feeds.get(orgId);
    if (open) return open;
    let opening = this.opening.get(orgId);
    if (!opening) {
      opening = (async () => {
        const [head] = await this.db.query<{ seq: number }>('SELECT seq FROM ledger_heads WHERE org_id = $1', [orgId]);
        const feed: Feed = { orgId, seq: head?.seq ?? 0, subs: new Set(), reading: false, again: false, wanted: 0 };
        this.feeds.set(orgId, feed);
        // A notification that came while the head was read found no feed: look once now.
        this.wake(feed);
        return feed;
      })().finally(() => this.opening.delete(orgId));
      this.opening.set(orgId, opening);
    }
    return opening;
  }

  private unsubscribe(feed: Feed, sub: Subscriber): void {
    sub.closed = true;
    feed.subs.delete(sub);
    // The last one out closes the feed (a feed opening meanwhile for a new subscriber is a new one).
    if (feed.subs.size === 0 && this.feeds.get(feed.orgId) === feed) this.feeds.delete(feed.orgId);
  }

  /**
   * Read what is new, once, and hand it to every live subscriber. A wake naming a seq already read costs nothing
   * (this process's own append and its NOTIFY coming back are one read); one during a read reads again after it only
   * if that read did not reach the seq it names.
   */
  private wake(feed: Feed, seq?: number): void {
    if (seq !== undefined && seq <= feed.seq) return;
    if (feed.reading) {
      if (seq === undefined) feed.again = true;
      else feed.wanted = Math.max(feed.wanted, seq);
      return;
    }
    feed.reading = true;
    void (async () => {
      try {
        do {
          feed.again = false;
          this.feedReads++;
          const rows = await readEvents(this.db, feed.orgId, feed.seq, this.pageSize);
          if (rows.length === 0) {
            feed.wanted = feed.seq; // not visible here (yet): the next wake-up or poll looks again
            continue;
          }
          feed.seq = rows[rows.length - 1].seq;
          const events = rows.map(toFeedEvent);
          for (const sub of [...feed.subs]) if (sub.live && !sub.closed) this.hand(feed, sub, events);
          if (rows.length === this.pageSize) feed.again = true;
        } while ((feed.again || feed.wanted > feed.seq) && this.feeds.get(feed.orgId) === feed);
      } catch (err) {
        // The next notification or poll reads again from the same seq: nothing is skipped.
        this.opts.onError?.(err as Error, `stream: reading new events of ${feed.orgId} failed`);
      } finally {
        feed.reading = false;
      }
    })();
  }

  private hand(feed: Feed, sub: Subscriber, events: readonly FeedEvent[]): void {
    const fresh = events[0].row.seq > sub.cursor ? events : events.filter((e) => e.row.seq > sub.cursor);
    if (fresh.length === 0) return;
    sub.cursor = fresh[fresh.length - 1].row.seq;
    try {
      const done = sub.deliver(fresh);
      if (done) done.catch((err: Error) => this.opts.onError?.(err, 'stream: a subscriber failed'));
    } catch (err) {
      this.opts.onError?.(err as Error, 'stream: a subscriber failed');
      this.unsubscribe(feed, sub);
    }
  }

  /** One query for every org with open streams: wake those whose head moved past what was read. */
  private async pollHeads(): Promise<void> {
    if (this.polling || this.feeds.size === 0) return;
    this.polling = true;
    try {
      const heads = await this.db.query<{ org_id: string; seq: number }>('SELECT org_id, seq FROM ledger_heads WHERE org_id = ANY($1::text[])', [
        [...this.feeds.keys()],
      ]);
      for (const h of heads) {
        const feed = this.feeds.get(h.org_id);
        if (feed) this.wake(feed, h.seq);
      }
    } catch (err) {
      this.opts.onError?.(err as Error, 'stream: polling the ledger heads failed');
    } finally {
      this.polling = false;
    }
  }
}

const toFeedEvent = (row: StoredEventRow): FeedEvent => ({ row, json: eventJson(row) });
