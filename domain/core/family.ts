import { actionClassOf } from '../../protocol/contract.js';
import type { Answerer } from '../../ai-gateway/answerer.js';
import type { SpendSource } from '../../ai-gateway/spend.js';
import type { Queryable } from '../../db/types.js';
import type { SignedRecord } from '../../blobs/index.js';
import type { JobDefinition } from '../jobs/define.js';
import type { EventVisibility } from '../stream/visibility.js';
import type { Deps, FamilyConfig } from './deps.js';
import type { HoldActDescriber } from './hold-acts.js';
import type { HoldKeeper } from './holds.js';
import type { MethodHandler, ReadHandler } from './handler.js';
import type { StartupStep } from './startup.js';

/*
 * A family is one module: its index.ts exports one descriptor with everything the core needs, and domain/deployed.ts
 * lists the descriptors. The runtime builds every registry from that list per runtime instance (FamilySet), so a
 * process that never imported a family cannot half-know it, and two runtimes in one process share nothing.
 *
 * What one family offers another (a party role for the directory, a reference target for annotations) is a
 * contribution: the consuming family declares the key and its type by augmenting Contributions from its own module
 * (`declare module '../core/family.js' { interface Contributions { partyRoles: PartyRoleSource } }`), other
 * families put values under that key in their descriptors, and the consumer reads them with
 * `deps.families.contributions('partyRoles')`. The core names no family.
 */

/**
 * Whether a signed URL bound to a record may still be served (blobs' RecordCheck), with business time (deps.clock)
 * for a check that depends on it (a retention date, a grant's expiry): the runtime binds it with its clock.
 */
export type SignedRecordCheck = (q: Queryable, orgId: string, record: SignedRecord, sha256: string, now: Date) => Promise<boolean>;

/** Extension points, keyed by name; each consuming family adds its own by module augmentation. */
export interface Contributions {}

export type ContributionKey = keyof Contributions;

/** Background work a family runs in processes with workers (the server's), stopped before the services close. */
export interface Background {
  stop(): Promise<void>;
}

export interface Family {
  /** The module's name: a registry family (`board`) or a group that deploys several (`org`: org and settings). */
  name: string;
  /** Deployed methods by full name (build with `methods(family, {...})`). */
  methods?: ReadonlyMap<string, MethodHandler>;
  /** Deployed GET reads by path (build with `reads({...})`). */
  reads?: ReadonlyMap<string, ReadHandler>;
  /** Scheduled jobs (domain/jobs), named `<family>.<job>`. */
  jobs?: readonly JobDefinition<any>[];
  /** Work the migrations leave for the application, run at every start (core/startup.ts). */
  startup?: readonly StartupStep[];
  /** AI answerers the gateway routes to (ai-gateway/answerer.ts). */
  answerers?: readonly Answerer[];
  /** Model spend it records that the AI budget and /cost.rollup count besides the gateway's asks (ai-gateway/spend.ts). */
  spend?: SpendSource;
  /** Per-event visibility, by registry family, for families whose rows are access-controlled (domain/stream). */
  eventVisibility?: Readonly<Record<string, EventVisibility>>;
  /** Records signed blob URLs are bound to, by kind (rec=<kind>:<id>). */
  signedRecords?: ReadonlyMap<string, SignedRecordCheck>;
  /** How its held acts read in the approval inbox, by action class (core/hold-acts.ts); others read generically. */
  holdActs?: Readonly<Record<string, HoldActDescriber>>;
  /** Keeps every family's signature holds (core/holds.ts): exactly one deployed family, approval, has it. */
  holds?: HoldKeeper;
  /** Defaults of the settings it declares in FamilyConfig (core/deps.ts); the runtime's options override them. */
  config?: Partial<FamilyConfig>;
  /** Started in processes that run workers. */
  background?: (deps: Deps) => Background;
  /** What it offers other families' extension points. */
  contributes?: { readonly [K in ContributionKey]?: Contributions[K] };
  /** Checks the whole set when it is built (a consumer of an extension point checks what was contributed to it). */
  verify?: (families: FamilySet) => void;
}

/** One contribution and the family that made it. */
export interface Contribution<K extends ContributionKey> {
  family: string;
  value: Contributions[K];
}

/** The deployed families of one runtime, and every registry built from them. Immutable once built. */
export class FamilySet {
  readonly methods: ReadonlyMap<string, MethodHandler>;
  readonly reads: ReadonlyMap<string, ReadHandler>;
  readonly jobs: readonly JobDefinition<any>[];
  readonly startup: readonly StartupStep[];
  readonly answerers: readonly Answerer[];
  readonly spend: readonly SpendSource[];
  readonly eventVisibility: ReadonlyMap<string, EventVisibility>;
  readonly signedRecords: ReadonlyMap<string, SignedRecordCheck>;
  readonly holdActs: ReadonlyMap<string, HoldActDescriber>;
  /** The family that keeps signature holds, if one is deployed. */
  readonly holds: HoldKeeper | undefined;
  /** Every family's setting defaults, merged. */
  readonly config: Partial<FamilyConfig>;

  constructor(readonly list: readonly Family[]) {
    const names = new Set<string>();
    for (const f of list) {
      if (names.has(f.name)) throw new Error(`family ${f.name} is listed twice`);
      names.add(f.name);
    }
    this.methods = merged(list, 'method', (f) => f.methods);
    this.reads = merged(list, 'read', (f) => f.reads);
    this.jobs = list.flatMap((f) => f.jobs ?? []);
    this.startup = list.flatMap((f) => f.startup ?? []);
    this.answerers = list.flatMap((f) => f.answerers ?? []);
    this.spend = list.flatMap((f) => (f.spend ? [f.spend] : []));
    this.eventVisibility = merged(list, 'event visibility', (f) => f.eventVisibility && new Map(Object.entries(f.eventVisibility)));
    this.signedRecords = merged(list, 'signed record kind', (f) => f.signedRecords);
    this.holdActs = merged(list, 'hold act wording', (f) => f.holdActs && new Map(Object.entries(f.holdActs)));
    for (const f of list) {
      // A family words its own action classes and those of the methods it deploys for another registry family
      // (the vault's settings.deleteSecret, branding's settings.saveDesignTokens).
      const deployed = new Set([...(f.methods?.keys() ?? [])].map(actionClassOf));
      const foreign = Object.keys(f.holdActs ?? {}).filter((c) => !c.startsWith(`${f.name}.`) && !deployed.has(c));
      if (foreign.length) throw new Error(`holdActs of ${f.name}: ${foreign.join(', ')} are neither ${f.name}'s action classes nor its methods'`);
    }
    const keepers = list.filter((f) => f.holds);
    if (keepers.length > 1) throw new Error(`signature holds are kept by ${keepers.map((f) => f.name).join(' and ')}: one family keeps them`);
    this.holds = keepers[0]?.holds;
    this.config = Object.assign({}, ...list.map((f) => f.config ?? {}));
    for (const f of list) f.verify?.(this);
  }

  /** Every family's value for an extension point, in list order. */
  contributions<K extends ContributionKey>(key: K): readonly Contribution<K>[] {
    return this.list.flatMap((f) => {
      const value = f.contributes?.[key];
      return value === undefined ? [] : [{ family: f.name, value: value }];
    });
  }

  /** The same families and these (tests that add a method, a job or a contribution of their own). */
  with(extra: readonly Family[]): FamilySet {
    return extra.length ? new FamilySet([...this.list, ...extra]) : this;
  }
}

function merged<V>(list: readonly Family[], what: string, pick: (f: Family) => ReadonlyMap<string, V> | undefined): Map<string, V> {
  const out = new Map<string, V>();
  const owner = new Map<string, string>();
  for (const f of list) {
    for (const [key, value] of pick(f) ?? []) {
      if (out.has(key)) throw new Error(`${what} ${key} is deployed by both ${owner.get(key)} and ${f.name}`);
      out.set(key, value);
      owner.set(key, f.name);
    }
  }
  return out;
}

/** A family's deployed handlers keyed by full method name (`board.createTask`). */
export function family(name: string, handlers: Record<string, MethodHandler<any>>): Map<string, MethodHandler> {
  return new Map(Object.entries(handlers).map(([suffix, h]) => [`${name}.${suffix}`, h as MethodHandler]));
}

export function reads(handlers: Record<string, ReadHandler<any>>): Map<string, ReadHandler> {
  return new Map(Object.entries(handlers) as [string, ReadHandler][]);
}
