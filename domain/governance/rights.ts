import { ApiError } from '../../protocol/errors.js';
import type { Queryable } from '../../db/types.js';
import type { Principal } from '../core/auth.js';
import type { HandlerCtx } from '../core/handler.js';
import { actionClassOf } from '../approval/index.js';
import { activeHumansWithRole, getMembers } from '../people/index.js';
import { autonomyOf, rolesOf, roleMembers, type Autonomy } from './colleagues.js';
import { parseSelector, type Right } from './selectors.js';

/*
 * Decision rights with meaning (docs/families/governance.md, Decision rights): which declared right governs an act
 * (first match in the act kind's lookup order), who satisfies it, and the one enforcement every governing act calls,
 * in its own transaction: the caller satisfies the right -> the act runs; else, if a human would -> the hold frame
 * for those humans (approval.resolve refuses everyone else, and the proof is re-checked against them at the retry);
 * else GOVERNANCE_NOT_READY naming the right (no human may decide it under the rights as declared).
 */

export type { Right } from './selectors.js';
export type { Autonomy } from './colleagues.js';

/** What is being decided: a decision in an area, a binding charter edit, a handoff, a compact's terms. */
export type ActKind = 'decision' | 'charter' | 'handoff' | 'compact';

export interface GoverningAct {
  kind: ActKind;
  /** decision: its area (`pricing.eu`); charter: the method's suffix (`updateClauses`); handoff: its area, if any; compact: none. */
  key?: string;
  /** Who holds the act's subject, named by the `owner` selector: a decision's driver, a task's holder, a compact's sponsor. */
  owner?: string | null;
}

/** The decider when no declared right matches: humans decide decisions, the charter and compacts; owners hand off. */
export const DEFAULT_DECIDED_BY: Readonly<Record<ActKind, string>> = { decision: 'humans', charter: 'humans', handoff: 'owner', compact: 'humans' };

/**
 * The areas looked up for an act, first match wins: decision `a.b`: `a.b`, `a`, `decision`, `*`; charter edit by m:
 * `charter.m`, `charter`, `*`; handoff in a: `handoff.a`, `handoff`, `*`; compact: `compact`, `*`.
 */
export function lookupOrder(act: GoverningAct): string[] {
  const key = act.key?.trim() || undefined;
  switch (act.kind) {
    case 'decision': {
      const parts = key ? key.split('.') : [];
      const prefixes = parts.map((_, i) => parts.slice(0, parts.length - i).join('.'));
      return [...prefixes.filter((p) => p !== 'decision' && p !== '*'), 'decision', '*'];
    }
    case 'charter':
    case 'handoff':
      return [...(key ? [`${act.kind}.${key}`] : []), act.kind, '*'];
    case 'compact':
      return ['compact', '*'];
  }
}

export interface ResolvedRight {
  act: GoverningAct;
  /** The declared right that matched, or the act kind's default ({area: '*', decidedBy: DEFAULT_DECIDED_BY[kind]}). */
  right: Right;
  /** The area of the declared right that matched; null when none did (the default applies). */
  matched: string | null;
}

/** First match in lookupOrder(act) among the declared rights, else the act kind's default. Pure. */
export function findRight(rights: readonly Right[], act: GoverningAct): ResolvedRight {
  for (const area of lookupOrder(act)) {
    const right = rights.find((r) => r.area === area);
    if (right) return { act, right, matched: area };
  }
  return { act, right: { area: '*', decidedBy: DEFAULT_DECIDED_BY[act.kind] }, matched: null };
}

/** `the right "pricing" (decidedBy usr_…)`, or the default's words: how messages name a right. */
export function describeRight(r: ResolvedRight): string {
  return r.matched === null
    ? `the default right for a ${r.act.kind} (decidedBy ${r.right.decidedBy}; no right declared for ${lookupOrder(r.act).slice(0, -1).join(', ')} or *)`
    : `the right ${JSON.stringify(r.matched)} (decidedBy ${r.right.decidedBy}${r.right.escalateTo ? `, escalateTo ${r.right.escalateTo}` : ''})`;
}

/**
 * The org's declared rights. `share` (the default) takes the org row FOR SHARE, so in an act's transaction the
 * rights it enforced cannot be replaced (set_decision_rights) before it commits. Reads outside acts pass `none`.
 */
export async function readRights(q: Queryable, orgId: string, lock: 'share' | 'none' = 'share'): Promise<{ declared: boolean; rights: Right[] }> {
  const [row] = await q.query<{ decision_rights: Right[] | string | null }>(
    `SELECT decision_rights FROM orgs WHERE org_id = $1${lock === 'share' ? ' FOR SHARE' : ''}`,
    [orgId],
  );
  const raw = row?.decision_rights ?? null;
  const rights = typeof raw === 'string' ? (JSON.parse(raw) as Right[]) : raw;
  return { declared: rights !== null, rights: rights ?? [] };
}

/** The right governing one act, read in the act's transaction (FOR SHARE). */
export async function rightFor(q: Queryable, orgId: string, act: GoverningAct): Promise<ResolvedRight> {
  return findRight((await readRights(q, orgId)).rights, act);
}

export interface Who {
  id: string;
  kind: 'human' | 'agent';
}

/** Whether `selector` names `who`; `owner` is the act's subject holder; roles come from the charter (colleagues.ts). */
export async function selects(q: Queryable, orgId: string, selector: string, who: Who, owner?: string | null): Promise<boolean> {
  const s = parseSelector(selector, 'party');
  if ('error' in s) return false;
  switch (s.kind) {
    case 'principal':
      return s.id === who.id;
    case 'humans':
      return who.kind === 'human';
    case 'agents':
      return who.kind === 'agent';
    case 'anyone':
      return true;
    case 'owner':
      return Boolean(owner) && owner === who.id;
    case 'role':
      return (await rolesOf(q, orgId, who.id)).includes(s.slug);
  }
}

/** Whether any selector of a list (agree, perform, input) names `who`. */
export async function selectsAny(q: Queryable, orgId: string, selectors: readonly string[] | undefined, who: Who, owner?: string | null): Promise<boolean> {
  for (const s of selectors ?? []) if (await selects(q, orgId, s, who, owner)) return true;
  return false;
}

async function activeHumans(q: Queryable, orgId: string, ids: readonly string[]): Promise<string[]> {
  const members = await getMembers(q, orgId, [...new Set(ids)]);
  return members.filter((m) => m.kind === 'human' && m.status === 'active').map((m) => m.id);
}

/** Those of `ids` who can decide an approval at all (role admin or approver): a hold for anyone else would wait forever. */
async function mayApprove(q: Queryable, orgId: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const approvers = new Set(await activeHumansWithRole(q, orgId, ['admin', 'approver']));
  return ids.filter((id) => approvers.has(id));
}

/** The active humans a selector names: `any` for humans and anyone (every human), ids otherwise (none for agents). */
export async function humansNamed(q: Queryable, orgId: string, selector: string, owner?: string | null): Promise<string[] | 'any'> {
  const s = parseSelector(selector, 'party');
  if ('error' in s) return [];
  switch (s.kind) {
    case 'principal':
      return s.principalKind === 'human' ? activeHumans(q, orgId, [s.id]) : [];
    case 'humans':
    case 'anyone':
      return 'any';
    case 'agents':
      return [];
    case 'owner':
      return owner ? activeHumans(q, orgId, [owner]) : [];
    case 'role':
      return activeHumans(q, orgId, await roleMembers(q, orgId, s.slug));
  }
}

/**
 * The humans who decide for a right: those decidedBy names, else those escalateTo names. A hold goes to those of
 * them who may decide approvals (enforceRights).
 */
export async function decidersOf(q: Queryable, orgId: string, r: ResolvedRight): Promise<string[] | 'any'> {
  const named = await humansNamed(q, orgId, r.right.decidedBy, r.act.owner);
  if (named === 'any' || named.length > 0) return named;
  return r.right.escalateTo ? humansNamed(q, orgId, r.right.escalateTo, r.act.owner) : [];
}

export interface Standing {
  satisfies: boolean;
  /** Satisfied only as an admin-scope human (admins satisfy any decidedBy): the act's event says `override: true`. */
  override: boolean;
  /** The caller's autonomy when it is an agent (null for a human). */
  autonomy: Autonomy | null;
}

/**
 * Whether the caller satisfies a right's decidedBy. A human: when the selector names them, or (override) with the
 * admin scope. An agent: never when supervised; when named by id, only with autonomy delegated; as the owner when
 * the right says `owner` (an agent hands off what it holds). Groups and roles never make an agent a decider.
 */
export async function standing(q: Queryable, orgId: string, principal: Principal, r: ResolvedRight): Promise<Standing> {
  const owner = r.act.owner ?? null;
  if (principal.kind === 'human') {
    if (await selects(q, orgId, r.right.decidedBy, principal, owner)) return { satisfies: true, override: false, autonomy: null };
    const admin = principal.scopes.has('admin');
    return { satisfies: admin, override: admin, autonomy: null };
  }
  const autonomy = await autonomyOf(q, orgId, principal.id);
  const s = parseSelector(r.right.decidedBy, 'decider');
  const satisfies =
    autonomy !== 'supervised' &&
    !('error' in s) &&
    ((s.kind === 'principal' && s.id === principal.id && autonomy === 'delegated') || (s.kind === 'owner' && owner === principal.id));
  return { satisfies, override: false, autonomy };
}

export interface HoldSpec {
  /** The row the hold is about (a decision id, a section id…). */
  subjectId: string;
  /** What would happen, in plain words, as the approval shows it (stays off the ledger). */
  summary: string;
  /**
   * The act's params exactly as parsed: the proof is bound to their hash, and MCP retries with them, so add nothing.
   * Bind anything else (a content hash) through the summary, which the approval must still match at the retry.
   */
  params: Record<string, unknown>;
  completion?: 'retry' | 'release';
  amendable?: string[];
  /** Hold for these humans in preference (a compact's sponsor): those of them who decide, when any does. */
  preferDeciders?: readonly string[];
  /**
   * Why the act holds even when the caller satisfies the rights (an agent's binding charter edit, one's own
   * authority): then it holds for the deciders other than the caller, or other admins when the rights name none.
   */
  alwaysHold?: string;
}

export interface Enforcement {
  rights: ResolvedRight[];
  /** The caller ran it as an admin-scope human whom the rights do not name: the event says `override: true`. */
  override: boolean;
  /** The approval whose human decision let the act run (the caller did not satisfy the rights); null otherwise. */
  approvalId: string | null;
}

/**
 * The enforcement every governing act calls, before its writes, in its transaction (its contract declares hold). One
 * act or several at once (supersede decides the new decision and each target): the caller must satisfy them all;
 * a hold is then for the humans who decide every one. Returns how it may run, or ends the call with the hold frame
 * (`<family>.signature.hold`, class from the method) or GOVERNANCE_NOT_READY naming the right when no human may decide it.
 */
export async function enforceRights(ctx: HandlerCtx, acts: GoverningAct | readonly GoverningAct[], hold: HoldSpec): Promise<Enforcement> {
  const list: readonly GoverningAct[] = Array.isArray(acts) ? acts : [acts as GoverningAct];
  const { rights } = await readRights(ctx.q, ctx.orgId);
  const resolved = list.map((a) => findRight(rights, a));
  const standings: Standing[] = [];
  for (const r of resolved) standings.push(await standing(ctx.q, ctx.orgId, ctx.principal, r));
  if (!hold.alwaysHold && standings.every((s) => s.satisfies)) return { rights: resolved, override: standings.some((s) => s.override), approvalId: null };

  let deciders: string[] | 'any' = 'any';
  for (const r of resolved) {
    const these = await decidersOf(ctx.q, ctx.orgId, r);
    if (these !== 'any') deciders = deciders === 'any' ? these : deciders.filter((id) => these.includes(id));
  }
  // The requester never decides its own approval (approval.resolve refuses it), nor does a human who cannot decide approvals.
  if (deciders !== 'any')
    deciders = await mayApprove(
      ctx.q,
      ctx.orgId,
      deciders.filter((id) => id !== ctx.principal.id),
    );
  if (hold.preferDeciders?.length) {
    const prefer = await mayApprove(
      ctx.q,
      ctx.orgId,
      await activeHumans(
        ctx.q,
        ctx.orgId,
        hold.preferDeciders.filter((id) => id !== ctx.principal.id),
      ),
    );
    const narrowed = deciders === 'any' ? prefer : prefer.filter((id) => (deciders as string[]).includes(id));
    if (narrowed.length > 0) deciders = narrowed;
  }
  if (hold.alwaysHold) {
    if (deciders !== 'any' && deciders.length === 0) {
      // Admin-scope humans satisfy any decidedBy: another admin decides what the rights give only the caller.
      deciders = (await activeHumansWithRole(ctx.q, ctx.orgId, ['admin'])).filter((id) => id !== ctx.principal.id);
    } else if (deciders === 'any' && (await activeHumansWithRole(ctx.q, ctx.orgId, ['admin', 'approver'])).every((id) => id === ctx.principal.id)) {
      deciders = [];
    }
  }
  if (deciders !== 'any' && deciders.length === 0) {
    if (hold.alwaysHold) {
      throw new ApiError(
        'GOVERNANCE_NOT_READY',
        `${ctx.method.name} holds for a human other than ${ctx.principal.id} (${hold.alwaysHold}), and no other active human who may decide approvals (role admin or approver) decides it: an admin names who decides (governance.set_decision_rights)`,
      );
    }
    const which = resolved
      .filter((_, i) => !standings[i].satisfies)
      .map(describeRight)
      .join(' and ');
    const supervised = standings.some((s) => s.autonomy === 'supervised') ? ' (a supervised agent holds on every governing act)' : '';
    throw new ApiError(
      'GOVERNANCE_NOT_READY',
      `${ctx.method.name} needs ${which}: ${ctx.principal.id} does not hold it${supervised}, and no other active human who may decide approvals (role admin or approver) does; ` +
        `an admin may act, or an admin names who decides (governance.set_decision_rights)`,
    );
  }
  const proof = await ctx.requireSignature({
    actionClass: actionClassOf(ctx.method.name),
    subjectId: hold.subjectId,
    summary: hold.summary,
    params: hold.params,
    ...(hold.completion ? { completion: hold.completion } : {}),
    ...(hold.amendable ? { amendable: hold.amendable } : {}),
    ...(deciders === 'any' ? {} : { deciders }),
  });
  return { rights: resolved, override: false, approvalId: proof.approvalId };
}

/** A governing act found already done (changed:false): a proof given anyway is checked, not consumed. */
export async function verifyGivenProof(ctx: HandlerCtx, hold: HoldSpec): Promise<string | null> {
  const proof = await ctx.verifyProof({ actionClass: actionClassOf(ctx.method.name), subjectId: hold.subjectId, summary: hold.summary, params: hold.params });
  return proof?.approvalId ?? null;
}
