import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Inbox sessions: an opaque id (the HttpOnly cookie) mapped in this process's memory to the human key it was
 * opened with. The key never leaves the server again (not in the URL, the page or browser storage), and it is
 * never written to the database (keys are stored hashed there). Every inbox call runs through the pipeline
 * with that key, so a revoked key ends the session at its next call.
 */
export interface Session {
  /** SHA-256 of the cookie value: the map key (the raw id is only in the cookie). */
  readonly idHash: string;
  readonly apiKey: string;
  readonly orgId: string;
  readonly principalId: string;
  /** Sent with every state-changing request in x-csrf-token. */
  readonly csrfToken: string;
  readonly createdAt: number;
  lastSeenAt: number;
}

export interface SessionOptions {
  /** A session unused this long ends (default 2 hours). */
  idleMs?: number;
  /** A session ends this long after sign-in whatever its use (default 12 hours). */
  maxAgeMs?: number;
  /** At most this many live sessions; the least recently used is dropped beyond it (default 10,000). */
  maxSessions?: number;
  now?: () => number;
}

const hashId = (id: string): string => createHash('sha256').update(id).digest('hex');

export class SessionStore {
  readonly idleMs: number;
  readonly maxAgeMs: number;
  private readonly maxSessions: number;
  private readonly now: () => number;
  /** Insertion order is recency order: get() re-inserts. */
  private readonly byHash = new Map<string, Session>();

  constructor(opts: SessionOptions = {}) {
    this.idleMs = opts.idleMs ?? 2 * 60 * 60 * 1000;
    this.maxAgeMs = opts.maxAgeMs ?? 12 * 60 * 60 * 1000;
    this.maxSessions = opts.maxSessions ?? 10_000;
    this.now = opts.now ?? Date.now;
  }

  /** Open a session; returns it and the cookie value (256 random bits). */
  create(p: { apiKey: string; orgId: string; principalId: string }): { session: Session; cookieValue: string } {
    const cookieValue = randomBytes(32).toString('base64url');
    const now = this.now();
    const session: Session = {
      idHash: hashId(cookieValue),
      apiKey: p.apiKey,
      orgId: p.orgId,
      principalId: p.principalId,
      csrfToken: randomBytes(32).toString('base64url'),
      createdAt: now,
      lastSeenAt: now,
    };
    this.byHash.set(session.idHash, session);
    while (this.byHash.size > this.maxSessions) {
      const oldest = this.byHash.keys().next().value as string;
      this.byHash.delete(oldest);
    }
    return { session, cookieValue };
  }

  /** The live session for a cookie value, marking it used; undefined when unknown, idle too long or too old. */
  get(cookieValue: string | undefined, touch = true): Session | undefined {
    if (!cookieValue) return undefined;
    const idHash = hashId(cookieValue);
    const session = this.byHash.get(idHash);
    if (!session) return undefined;
    const now = this.now();
    if (now - session.lastSeenAt > this.idleMs || now - session.createdAt > this.maxAgeMs) {
      this.byHash.delete(idHash);
      return undefined;
    }
    if (touch) {
      session.lastSeenAt = now;
      this.byHash.delete(idHash);
      this.byHash.set(idHash, session);
    }
    return session;
  }

  /** Whether a session is still open (without marking it used): live streams check this. */
  isLive(session: Session): boolean {
    const now = this.now();
    return this.byHash.get(session.idHash) === session && now - session.lastSeenAt <= this.idleMs && now - session.createdAt <= this.maxAgeMs;
  }

  delete(session: Session): void {
    this.byHash.delete(session.idHash);
  }

  get size(): number {
    return this.byHash.size;
  }
}

/** Constant-time comparison of the CSRF header with the session's token. */
export function csrfMatches(session: Session, given: string | string[] | undefined): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(session.csrfToken);
  return a.length === b.length && timingSafeEqual(a, b);
}
