import { nextSeq } from '../../ledger/append.js';
import type { HandlerCtx } from '../core/handler.js';
import { designHead } from './design-log.js';
import { changedPaths, describeChanges } from './patch.js';
import { checkFoundation, foundationAt, heads, staleBase, writeFoundation, writeVersion, type Doc } from './model.js';

/*
 * commitFoundation: the one way the brand identity changes (saveFoundation, restoreFoundation and
 * settings.saveDesignTokens all call it). Under the heads lock: the base version must be the live one, the new
 * document must pass every check, an agent's change holds for a human (the inbox shows the diff), and the new
 * version cites the ledger event that records it. A change to nothing: changed:false, one event saying noop.
 */

export interface Commit {
  baseVersion: number;
  /** How the caller names the base (baseVersion, or settings' ifVersion). */
  baseField?: string;
  /** The whole next document, from the live one (a patch applied, a past version). */
  next: (live: Doc) => unknown;
  kind: 'foundation.save' | 'foundation.restore' | 'tokens.save';
  /** The hold an agent's change asks for: its class, subject and what the summary calls the act. */
  hold: { actionClass: string; subjectId: (version: number) => string; act: string };
  /** The held call's params (their hash binds the approval). */
  params: Record<string, unknown>;
  fromVersion?: number;
  proposalId?: string;
  /** Rows of the caller's to write with the new version, before its event (a proposal marked applied). */
  written?: (version: number, at: string) => Promise<void>;
  /** The one event: its kind, entity and payload, given what was (or was not) written. */
  event: (c: Committed) => [kind: string, entityId: string, payload: Record<string, unknown>];
}

export interface Committed {
  version: number;
  baseVersion: number;
  doc: Doc;
  sha256: string;
  paths: string[];
  changed: boolean;
  contrasts: ReturnType<typeof checkFoundation>['contrasts'];
  designHead: { seq: number; hash: string };
  approvalId: string | null;
}

export async function commitFoundation(ctx: HandlerCtx, c: Commit): Promise<Committed> {
  const h = await heads(ctx.q, ctx.orgId, true);
  if (c.baseVersion !== h.foundationVersion) throw staleBase(c.baseVersion, h.foundationVersion, c.baseField);
  const live = await foundationAt(ctx.q, ctx.orgId, h.foundationVersion);
  const { doc, contrasts } = checkFoundation(c.next(live.doc));
  const paths = changedPaths(live.doc, doc);
  const head = await designHead(ctx.q, ctx.orgId);
  const base = { baseVersion: h.foundationVersion, paths, contrasts, designHead: head };
  if (paths.length === 0) {
    const same = { ...base, version: h.foundationVersion, doc: live.doc, sha256: live.sha256, changed: false, approvalId: null };
    await ctx.emit(...withNoop(c.event(same)));
    return same;
  }
  const version = h.version + 1;
  const proof =
    ctx.principal.kind === 'agent'
      ? await ctx.requireSignature({
          actionClass: c.hold.actionClass,
          subjectId: c.hold.subjectId(version),
          summary: `An agent ${c.hold.act} as version ${version} (on ${h.foundationVersion}): ${describeChanges(live.doc, doc, paths)}`,
          params: c.params,
        })
      : null;
  const at = ctx.deps.clock.now().toISOString();
  const sha256 = await writeFoundation(ctx.q, ctx.orgId, version, doc, ctx.principal.id, at);
  await c.written?.(version, at);
  const ledgerSeq = await nextSeq(ctx.q, ctx.orgId);
  const approvalId = proof?.approvalId ?? null;
  await writeVersion(ctx.q, ctx.orgId, {
    version,
    kind: c.kind,
    actor: ctx.principal.id,
    at,
    ledgerSeq,
    fromVersion: c.fromVersion,
    proposalId: c.proposalId,
    approvalId,
  });
  const done = { ...base, version, doc, sha256, changed: true, approvalId };
  const event = await ctx.emitAndWait(...c.event(done));
  if (event.seq !== ledgerSeq) throw new Error(`brand version ${version} cites ledger seq ${ledgerSeq} but its event is ${event.seq}`);
  return done;
}

const withNoop = ([kind, entityId, payload]: [string, string, Record<string, unknown>]): [string, string, Record<string, unknown>] => [
  kind,
  entityId,
  { ...payload, noop: true },
];

/** The entity a foundation version's event is about. */
export const versionEntity = (version: number) => `brand_v${version}`;
