import { createHash, randomBytes } from 'node:crypto';
import { one, type Queryable } from '../../../db/types.js';
import { newId } from '../../core/ids.js';

/*
 * A member's sessions of the approval inbox (gateway/inbox signs members in with them). The table is people's
 * (decision 0085): a session is a member signed in with one of its keys, so it is cut with them, in the transaction
 * of admin.deactivate and user.deactivate (endInboxSessions); the gateway, a layer above, keeps its sessions through
 * this module (domain/people/index.ts).
 *
 * In the database so that any gateway process serves any request: the cookie holds 256 random bits, the table their
 * SHA-256. A session records the org, the principal and the key_id of the human key it was opened with, never the
 * key: each inbox request authenticates that key by id again (authenticateKeyId), so a revoked key ends the session
 * at its next call. Idle and maximum-age expiry are conditions of the lookup itself (the database's clock), so every
 * process agrees on them.
 */

export interface Session {
  /** Public handle (ses_…): notifications and logs name a session by it. */
  readonly sessionId: string;
  readonly orgId: string;
  readonly principalId: string;
  readonly keyId: string;
  /** Sent with every state-changing request in x-csrf-token. */
  readonly csrfToken: string;
}

export interface SessionOptions {
  /** A session unused this long ends (default 2 hours). */
  idleMs?: number;
  /** A session ends this long after sign-in whatever its use (default 12 hours). */
  maxAgeMs?: number;
  /** At most this many live sessions per principal; the least recently used goes beyond it (default 20). */
  maxPerPrincipal?: number;
}

const hashId = (id: string): string => createHash('sha256').update(id).digest('hex');

interface Row {
  session_id: string;
  org_id: string;
  principal_id: string;
  key_id: string;
  csrf_token: string;
}

const toSession = (r: Row): Session => ({ sessionId: r.session_id, orgId: r.org_id, principalId: r.principal_id, keyId: r.key_id, csrfToken: r.csrf_token });

// $n is the idle limit in ms. A row that fails it is dead, whether or not it is deleted yet.
const LIVE = (idleParam: string) => `expires_at > now() AND last_seen_at > now() - make_interval(secs => ${idleParam}::double precision / 1000)`;
const COLUMNS = 'session_id, org_id, principal_id, key_id, csrf_token';

export class SessionStore {
  readonly idleMs: number;
  readonly maxAgeMs: number;
  private readonly maxPerPrincipal: number;

  constructor(
    private readonly db: Queryable,
    opts: SessionOptions = {},
  ) {
    this.idleMs = opts.idleMs ?? 2 * 60 * 60 * 1000;
    this.maxAgeMs = opts.maxAgeMs ?? 12 * 60 * 60 * 1000;
    this.maxPerPrincipal = opts.maxPerPrincipal ?? 20;
  }

  /** Open a session for a key already authenticated; returns it and the cookie value. */
  async create(p: { orgId: string; principalId: string; keyId: string }): Promise<{ session: Session; cookieValue: string }> {
    const cookieValue = randomBytes(32).toString('base64url');
    const row = one(
      await this.db.query<Row>(
        `INSERT INTO inbox_sessions (session_id, id_hash, org_id, principal_id, key_id, csrf_token, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7::double precision / 1000))
       RETURNING ${COLUMNS}`,
        [newId('ses'), hashId(cookieValue), p.orgId, p.principalId, p.keyId, randomBytes(32).toString('base64url'), this.maxAgeMs],
      ),
    );
    // Housekeeping at sign-in (rare, and never on a request's path): this principal's sessions beyond the cap,
    // least recently used first, and every expired row.
    await this.db.query(
      `DELETE FROM inbox_sessions WHERE org_id = $1 AND session_id IN (
         SELECT session_id FROM inbox_sessions WHERE org_id = $1 AND principal_id = $2
          ORDER BY last_seen_at DESC, created_at DESC OFFSET $3)`,
      [p.orgId, p.principalId, this.maxPerPrincipal],
    );
    await this.db.query(`DELETE FROM inbox_sessions WHERE NOT (${LIVE('$1')})`, [this.idleMs]);
    return { session: toSession(row), cookieValue };
  }

  /** The live session for a cookie value, marked used (touch); undefined when unknown, idle too long or too old. */
  async get(cookieValue: string | undefined, touch = true): Promise<Session | undefined> {
    if (!cookieValue || cookieValue.length > 100) return undefined;
    const idHash = hashId(cookieValue);
    const [row] = touch
      ? await this.db.query<Row>(`UPDATE inbox_sessions SET last_seen_at = now() WHERE id_hash = $1 AND ${LIVE('$2')} RETURNING ${COLUMNS}`, [
          idHash,
          this.idleMs,
        ])
      : await this.db.query<Row>(`SELECT ${COLUMNS} FROM inbox_sessions WHERE id_hash = $1 AND ${LIVE('$2')}`, [idHash, this.idleMs]);
    if (row) return toSession(row);
    // Unknown, or expired: an expired row goes now rather than at the next sign-in.
    await this.db.query('DELETE FROM inbox_sessions WHERE id_hash = $1', [idHash]);
    return undefined;
  }

  /**
   * Whether a session is still open and its key would still authenticate (not revoked, its member active, its org
   * not deleted: domain/core/auth.ts's checks), without marking it used: live streams check this.
   */
  async isLive(session: Session): Promise<boolean> {
    const rows = await this.db.query(
      `SELECT 1 FROM inbox_sessions s JOIN api_keys k ON k.org_id = s.org_id AND k.key_id = s.key_id
         JOIN principals p ON p.org_id = k.org_id AND p.principal_id = k.principal_id
         JOIN orgs o ON o.org_id = s.org_id
        WHERE s.org_id = $3 AND s.session_id = $1 AND k.revoked_at IS NULL AND p.status = 'active' AND o.deleted_at IS NULL AND ${LIVE('$2')}`,
      [session.sessionId, this.idleMs, session.orgId],
    );
    return rows.length > 0;
  }

  async delete(session: Session, q: Queryable = this.db): Promise<void> {
    await q.query('DELETE FROM inbox_sessions WHERE org_id = $1 AND session_id = $2', [session.orgId, session.sessionId]);
  }
}

/**
 * End the member's approval-inbox sessions. Each inbox request re-checks its key anyway; ending them here means a
 * reactivated member signs in again. Returns how many.
 */
export async function endInboxSessions(q: Queryable, orgId: string, memberId: string): Promise<number> {
  const rows = await q.query('DELETE FROM inbox_sessions WHERE org_id = $1 AND principal_id = $2 RETURNING session_id', [orgId, memberId]);
  return rows.length;
}
