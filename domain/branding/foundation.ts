import { conflict, badRequest } from '../../protocol/errors.js';
import { branding as c } from '../../protocol/methods/branding/index.js';
import { actionClassOf } from '../approval/index.js';
import { handler } from '../core/handler.js';
import { commitFoundation, versionEntity, type Committed } from './commit.js';
import { contrastsOfStored, foundationOf, heads, staleBase, type Doc } from './model.js';
import { applyMergePatch } from './patch.js';
import { decideProposal, isExpired, loadProposal, openProposals, toProposal } from './proposals.js';

/*
 * The foundation's reads and saves. Events carry versions, paths, hashes and the design log's head; never token
 * values, names or voice texts.
 */

export const getFoundation = handler(c.getFoundation, async (ctx, p) => {
  const h = await heads(ctx.q, ctx.orgId);
  const f = await foundationOf(ctx.q, ctx.orgId, p.version ?? h.foundationVersion, h);
  const now = ctx.deps.clock.now();
  const open = await openProposals(ctx.q, ctx.orgId, now);
  return {
    version: f.version,
    latestVersion: h.version,
    foundation: f.doc,
    sha256: f.sha256,
    contrasts: contrastsOfStored(f.doc),
    savedAt: f.savedAt,
    savedBy: f.savedBy,
    proposals: open.map((r) => toProposal(r, now)),
  };
});

export function voicePrompt(doc: Doc): string {
  const v = doc.voice;
  const lines = [`Write as ${doc.name || 'the brand'}.`];
  if (v.tone) lines.push(`Tone: ${v.tone}`);
  if (v.rules.length) {
    lines.push('Rules (cite the id of a rule you apply):');
    for (const r of v.rules)
      lines.push(
        `- [${r.id}] ${r.text}${r.avoid.length ? ` Never use: ${r.avoid.map((a) => `"${a}"`).join(', ')}.` : ''}${r.prefer ? ` Say "${r.prefer}" instead.` : ''}`,
      );
  }
  if (v.examples.length) {
    lines.push('Examples in this voice:');
    for (const e of v.examples) lines.push(`- ${e.channel ? `(${e.channel}) ` : ''}${e.text}`);
  }
  return lines.join('\n');
}

export const getVoice = handler(c.getVoice, async (ctx, p) => {
  const h = await heads(ctx.q, ctx.orgId);
  const f = await foundationOf(ctx.q, ctx.orgId, h.foundationVersion, h);
  return { version: f.version, voice: p.format === 'json' ? f.doc.voice : null, prompt: p.format === 'prompt' ? voicePrompt(f.doc) : null };
});

const view = (d: Committed) => ({ version: d.version, foundation: d.doc, sha256: d.sha256, contrasts: d.contrasts, changed: d.changed });

const saveEvent =
  (proposalId: string | null) =>
  (d: Committed): [string, string, Record<string, unknown>] => [
    'branding.foundation.save',
    versionEntity(d.version),
    { version: d.version, baseVersion: d.baseVersion, proposalId, paths: d.paths, hash: d.sha256, designHead: d.designHead, approvalId: d.approvalId },
  ];

export const saveFoundation = handler(c.saveFoundation, async (ctx, p) => {
  if ((p.patch === undefined) === (p.proposalId === undefined)) throw badRequest('patch', 'give exactly one of patch or proposalId');
  const hold = { actionClass: actionClassOf(ctx.method.name), act: 'saves the brand foundation' };
  if (p.patch !== undefined) {
    const patch = p.patch;
    const d = await commitFoundation(ctx, {
      baseVersion: p.baseVersion,
      next: (live) => applyMergePatch(live, patch),
      kind: 'foundation.save',
      hold: { ...hold, subjectId: (v) => versionEntity(v) },
      params: p,
      event: saveEvent(null),
    });
    return { ...view(d), paths: d.paths, proposal: null };
  }
  const now = ctx.deps.clock.now();
  const row = await loadProposal(ctx.q, ctx.orgId, p.proposalId!);
  if (row.status === 'applied' || row.status === 'declined') {
    // A proof given again for a decided proposal is checked first: a used one is refused as used.
    const subjectId = row.status === 'applied' && row.applied_version !== null ? versionEntity(Number(row.applied_version)) : row.proposal_id;
    await ctx.verifyProof({ actionClass: hold.actionClass, subjectId, summary: '', params: p });
    if (p.decision === 'decline' && row.status === 'declined') {
      const h = await heads(ctx.q, ctx.orgId);
      const live = await foundationOf(ctx.q, ctx.orgId, h.foundationVersion, h);
      await ctx.emit('branding.proposal.decline', row.proposal_id, { proposalId: row.proposal_id, noop: true });
      return {
        version: live.version,
        foundation: live.doc,
        sha256: live.sha256,
        contrasts: contrastsOfStored(live.doc),
        changed: false,
        paths: [],
        proposal: toProposal(row, now),
      };
    }
    throw conflict(
      `proposal ${row.proposal_id} is already ${row.status}${row.applied_version ? ` (version ${row.applied_version})` : ''}: propose again (branding.proposeChange) for another change`,
    );
  }
  if (isExpired(row, now) || row.status === 'expired')
    throw conflict(`proposal ${row.proposal_id} expired at ${new Date(row.expires_at).toISOString()}: propose it again on the current version`);
  const h = await heads(ctx.q, ctx.orgId, true);
  if (p.baseVersion !== h.foundationVersion) throw staleBase(p.baseVersion, h.foundationVersion);
  if (p.decision === 'decline') {
    const at = now.toISOString();
    await decideProposal(ctx.q, ctx.orgId, row.proposal_id, 'declined', ctx.principal.id, at, null);
    const live = await foundationOf(ctx.q, ctx.orgId, h.foundationVersion, h);
    await ctx.emit('branding.proposal.decline', row.proposal_id, { proposalId: row.proposal_id, baseVersion: Number(row.base_version) });
    const declined = { ...row, status: 'declined' as const, decided_by: ctx.principal.id };
    return {
      version: live.version,
      foundation: live.doc,
      sha256: live.sha256,
      contrasts: contrastsOfStored(live.doc),
      changed: true,
      paths: [],
      proposal: toProposal(declined, now),
    };
  }
  if (Number(row.base_version) !== h.foundationVersion) {
    throw conflict(
      `proposal ${row.proposal_id} was made on version ${row.base_version}; the foundation is at version ${h.foundationVersion}: decline it and propose again on version ${h.foundationVersion}`,
    );
  }
  const d = await commitFoundation(ctx, {
    baseVersion: p.baseVersion,
    next: (live) => applyMergePatch(live, row.patch),
    kind: 'foundation.save',
    hold: { ...hold, subjectId: (v) => versionEntity(v) },
    params: p,
    proposalId: row.proposal_id,
    written: (version, at) => decideProposal(ctx.q, ctx.orgId, row.proposal_id, 'applied', ctx.principal.id, at, version),
    event: saveEvent(row.proposal_id),
  });
  const applied = d.changed ? { ...row, status: 'applied' as const, decided_by: ctx.principal.id, applied_version: d.version } : row;
  return { ...view(d), paths: d.paths, proposal: toProposal(applied, now) };
});
