import type { Queryable } from '../../db/types.js';
import type { StoredEventRow } from '../../ledger/read.js';
import type { Principal } from '../core/auth.js';
import { hiddenFamilies } from '../ledger-reads.js';
import type { FamilySet } from '../core/family.js';

/*
 * Per-event visibility: which ledger events one reader may see, for GET /events, the live stream and every face
 * built on them. Two layers:
 * - family scope (hiddenFamilies): a key without a family's own read scope sees none of its events;
 * - per event, for families whose rows are access-controlled (a private channel, a restricted folder, a call):
 *   the family's rule (EventVisibility, exported from its index.ts and listed by family in domain/deployed.ts)
 *   says which of a batch of its events the reader may see, as its reads would answer for the rows they name.
 * A human key with the admin scope sees every event: the org's audit view, so the whole chain can be verified.
 * This module names no family: it takes the map.
 */

/** One reader's view of one family's events. */
export interface FamilyReader {
  /** Of `events` (all of this family, in seq order), the seqs the reader may see. One query per call at most. */
  visible(events: readonly StoredEventRow[]): Promise<ReadonlySet<number>>;
  /**
   * A live stream's reader is kept across batches and may cache what it read; every batch (all families) is shown
   * here first, so the reader drops what an event of it may have changed (a member added, a folder shared).
   */
  saw?(batch: readonly StoredEventRow[]): void;
}

export interface ReaderContext {
  q: Queryable;
  orgId: string;
  principal: Principal;
  /** The reader lives as long as a stream (cache across batches); false: one page, nothing kept. */
  cache: boolean;
  /** The whole rule set, for a family whose events name other events (an annotation on `evt_<seq>`). */
  events: EventAccess;
  /** The runtime's families: what a record's id prefix names and how it is read (domain/refs.ts). */
  families: FamilySet;
}

/** A family's rule: a reader of its events for one principal. */
export type EventVisibility = (ctx: ReaderContext) => FamilyReader;

/** The admin view: a human key with the admin scope sees the whole chain (members' rules do not apply). */
export const seesWholeChain = (p: Principal): boolean => p.kind === 'human' && p.scopes.has('admin');

export class EventAccess {
  private readonly rules: ReadonlyMap<string, EventVisibility>;

  constructor(readonly families: FamilySet) {
    this.rules = families.eventVisibility;
  }

  /** A filter of events for `principal`: `cache` for a stream's reader that lives across batches. */
  reader(q: Queryable, principal: Principal, opts: { cache: boolean }): EventFilter {
    return new EventFilter(this.rules, { q, orgId: principal.orgId, principal, cache: opts.cache, events: this, families: this.families });
  }
}

export class EventFilter {
  private readonly hidden: ReadonlySet<string>;
  private readonly all: boolean;
  private readonly readers = new Map<string, FamilyReader>();

  constructor(
    private readonly rules: ReadonlyMap<string, EventVisibility>,
    private readonly ctx: ReaderContext,
  ) {
    this.hidden = new Set(hiddenFamilies(ctx.principal));
    this.all = seesWholeChain(ctx.principal);
  }

  /** Whether nothing is ever left out for this reader beyond family scope (the admin view). */
  get seesAll(): boolean {
    return this.all;
  }

  private readerOf(family: string): FamilyReader | undefined {
    let r = this.readers.get(family);
    if (!r) {
      const rule = this.rules.get(family);
      if (!rule) return undefined;
      r = rule(this.ctx);
      this.readers.set(family, r);
    }
    return r;
  }

  /** The events of `rows` the reader may see, in order: one query per access-controlled family present at most. */
  async visible<R extends StoredEventRow>(rows: readonly R[]): Promise<R[]> {
    // Readers made so far keep caches: they see every batch, whatever families it holds.
    if (this.ctx.cache) for (const r of this.readers.values()) r.saw?.(rows);
    const scoped = rows.filter((e) => !this.hidden.has(e.family));
    if (this.all) return scoped;
    const byFamily = new Map<string, R[]>();
    for (const e of scoped) {
      if (!this.rules.has(e.family)) continue;
      let list = byFamily.get(e.family);
      if (!list) byFamily.set(e.family, (list = []));
      list.push(e);
    }
    if (byFamily.size === 0) return scoped;
    const shown = new Set<number>();
    for (const [family, events] of byFamily) {
      // A reader made now has nothing cached for this batch to drop.
      for (const seq of await this.readerOf(family)!.visible(events)) shown.add(Number(seq));
    }
    return scoped.filter((e) => !this.rules.has(e.family) || shown.has(Number(e.seq)));
  }
}
