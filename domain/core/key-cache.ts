import type { Notifier } from '../../db/notifier.js';
import { ACCESS_CHANGED, concerns, type AccessChange } from '../stream/access-watch.js';
import type { Principal } from './auth.js';

/**
 * Principals of recently seen API keys, by the key's hash, for reads (decision 0081): a GET answers without the
 * authentication round trip while its key is cached. An entry lives `ttlMs` at most, at most `size` are kept (the
 * oldest go first), and a failed authentication is never cached.
 *
 * Revocation: whatever ends or changes a key's access (a key revoked or re-scoped, a member's status, an org
 * deleted: migration 045's triggers; its decision rights, a member's name: migration 081's) sends `access.changed`
 * at commit to every process, and each drops the entries it names. A mutation committed by this process drops its
 * org's entries before it answers, so a change is seen by the next request here whatever the notification's
 * timing; another process sees it once the notification arrives (milliseconds). A lost listening connection clears
 * everything when it is back (resync); until then the TTL bounds what a missed notification could leave.
 */
export interface KeyCacheOptions {
  /** How long an entry is used; 0 turns the cache off. */
  ttlMs: number;
  /** How many keys are kept. */
  size: number;
  now?: () => number;
}

interface Entry {
  principal: Principal;
  expires: number;
}

/** Orgs whose last drop is remembered (for the in-flight check below); past it every lookup in flight is refused. */
const MAX_DROPS = 10_000;

export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  /** The cached key hashes of each org: a drop looks at its org's entries only. */
  private readonly byOrg = new Map<string, Set<string>>();
  private readonly now: () => number;
  /** Counts drops: a lookup started before its org's last drop may have read the old rows, and is not kept. */
  private epoch = 0;
  private readonly droppedAt = new Map<string, number>();
  private clearedAt = 0;

  constructor(private readonly opts: KeyCacheOptions) {
    this.now = opts.now ?? (() => performance.now());
  }

  get enabled(): boolean {
    return this.opts.ttlMs > 0 && this.opts.size > 0;
  }

  get(keyHash: string): Principal | undefined {
    const entry = this.entries.get(keyHash);
    if (!entry) return undefined;
    if (entry.expires > this.now()) return entry.principal;
    this.remove(keyHash, entry);
    return undefined;
  }

  private remove(keyHash: string, entry: Entry): void {
    this.entries.delete(keyHash);
    const org = this.byOrg.get(entry.principal.orgId);
    org?.delete(keyHash);
    if (org?.size === 0) this.byOrg.delete(entry.principal.orgId);
  }

  /** Where a lookup starts: pass it to set() with what the lookup found. */
  mark(): number {
    return this.epoch;
  }

  set(keyHash: string, principal: Principal, startedAt: number): void {
    if (!this.enabled) return;
    if (startedAt < this.clearedAt || (this.droppedAt.get(principal.orgId) ?? -1) > startedAt) return;
    const old = this.entries.get(keyHash);
    if (old) this.remove(keyHash, old);
    if (this.entries.size >= this.opts.size) {
      const [oldestHash, oldest] = this.entries.entries().next().value!;
      this.remove(oldestHash, oldest);
    }
    this.entries.set(keyHash, { principal, expires: this.now() + this.opts.ttlMs });
    let org = this.byOrg.get(principal.orgId);
    if (!org) this.byOrg.set(principal.orgId, (org = new Set()));
    org.add(keyHash);
  }

  /** Drop what a change concerns (every key of the org when it names no principal or key). */
  drop(change: AccessChange): void {
    // Off (KEY_CACHE_TTL_MS=0, the default): nothing is kept, so every mutation's drop has nothing to do.
    if (!this.enabled) return;
    this.epoch++;
    if (this.droppedAt.size >= MAX_DROPS) {
      this.droppedAt.clear();
      this.clearedAt = this.epoch;
    }
    this.droppedAt.delete(change.orgId);
    this.droppedAt.set(change.orgId, this.epoch);
    for (const hash of [...(this.byOrg.get(change.orgId) ?? [])]) {
      const entry = this.entries.get(hash)!;
      const p = entry.principal;
      if (concerns(change, { orgId: p.orgId, principalId: p.id, keyId: p.keyId })) this.remove(hash, entry);
    }
  }

  dropOrg(orgId: string): void {
    this.drop({ orgId, principalId: null, keyId: null, sessionId: null });
  }

  clear(): void {
    this.epoch++;
    this.clearedAt = this.epoch;
    this.droppedAt.clear();
    this.entries.clear();
    this.byOrg.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  /** Follow access changes from every process; returns the function that stops it. */
  watch(notifier: Notifier): () => void {
    const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
    return notifier.subscribe(
      ACCESS_CHANGED,
      (m) => {
        const orgId = text(m.orgId);
        if (orgId === null) return this.clear();
        this.drop({ orgId, principalId: text(m.principalId), keyId: text(m.keyId), sessionId: null });
      },
      () => this.clear(),
    );
  }
}
