import type { Db, Queryable } from './types.js';

/**
 * Notifications between the processes that share one database, over PostgreSQL LISTEN/NOTIFY (on PGlite the
 * same SQL, inside the one process). A message is published with pg_notify in the publisher's own transaction,
 * so it is delivered at commit and never for a rolled-back one, to every process (the publisher's too). It
 * carries ids only: a receiver reads the rows it names, as the receiver's caller is allowed to.
 *
 * Delivery is at most once: a listener whose connection drops misses what was sent meanwhile, and is told
 * so with resync() once it is back. Whoever needs every update re-reads on resync.
 */
export type NotifyPayload = Readonly<Record<string, string | number | boolean | null>>;

export interface Notifier {
  /** Send `payload` on `topic` when q's transaction commits (at once when q is not in a transaction). */
  publish(q: Queryable, topic: string, payload: NotifyPayload): Promise<void>;
  /**
   * Receive the topic's messages from every process; onResync is called when messages may have been missed.
   * Returns the function that stops it.
   */
  subscribe(topic: string, onMessage: (payload: NotifyPayload) => void, onResync?: () => void): () => void;
  close(): Promise<void>;
}

/** One channel for every topic: one LISTEN per process, the topic travels in the message. */
export const NOTIFY_CHANNEL = 'wops_notify';
/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more. */
export const MAX_NOTIFY_BYTES = 7999;
/** Ids and short codes only: a longer string is refused as free text, which must never travel in a notification. */
const MAX_VALUE_CHARS = 200;
const TOPIC = /^[a-z][a-z0-9_.-]{0,99}$/;

/** The message as sent: {"t": topic, "p": payload}. Throws, naming the field, on anything not allowed. */
export function notifyMessage(topic: string, payload: NotifyPayload): string {
  if (!TOPIC.test(topic)) throw new Error(`topic: ${JSON.stringify(topic)} is not a lowercase dotted name`);
  for (const [key, value] of Object.entries(payload)) {
    const ok = value === null || ['number', 'boolean'].includes(typeof value) || (typeof value === 'string' && value.length <= MAX_VALUE_CHARS);
    if (!ok)
      throw new Error(`payload.${key}: a notification carries ids and short codes only (strings up to ${MAX_VALUE_CHARS} characters, numbers, booleans)`);
  }
  const text = JSON.stringify({ t: topic, p: payload });
  if (Buffer.byteLength(text) > MAX_NOTIFY_BYTES)
    throw new Error(`payload: ${Buffer.byteLength(text)} bytes, above the ${MAX_NOTIFY_BYTES} a notification may carry`);
  return text;
}

interface Subscriber {
  onMessage(payload: NotifyPayload): void;
  onResync?(): void;
}

/** Start listening (resolves once the LISTEN is in place, so nothing committed after it is missed). */
export async function openNotifier(db: Db, opts: { onError?: (err: Error, what: string) => void } = {}): Promise<Notifier> {
  const topics = new Map<string, Set<Subscriber>>();
  const guarded = (what: string, fn: () => void) => {
    try {
      fn();
    } catch (err) {
      opts.onError?.(err as Error, what);
    }
  };
  const stop = await db.listen(NOTIFY_CHANNEL, {
    notify(text) {
      let message: { t?: unknown; p?: unknown };
      try {
        message = JSON.parse(text) as typeof message;
      } catch {
        return opts.onError?.(new Error(`not JSON: ${text.slice(0, 80)}`), `a ${NOTIFY_CHANNEL} notification was ignored`);
      }
      if (typeof message.t !== 'string' || typeof message.p !== 'object' || message.p === null) return;
      const payload = message.p as NotifyPayload;
      for (const s of [...(topics.get(message.t) ?? [])]) guarded(`a ${message.t} subscriber failed`, () => s.onMessage(payload));
    },
    resync() {
      for (const set of [...topics.values()]) for (const s of [...set]) if (s.onResync) guarded('a resync subscriber failed', () => s.onResync?.());
    },
  });
  return {
    async publish(q, topic, payload) {
      await q.query('SELECT pg_notify($1, $2)', [NOTIFY_CHANNEL, notifyMessage(topic, payload)]);
    },
    subscribe(topic, onMessage, onResync) {
      const subscriber: Subscriber = { onMessage, onResync };
      let set = topics.get(topic);
      if (!set) topics.set(topic, (set = new Set()));
      set.add(subscriber);
      return () => {
        set.delete(subscriber);
        if (set.size === 0 && topics.get(topic) === set) topics.delete(topic);
      };
    },
    close: () => stop(),
  };
}
