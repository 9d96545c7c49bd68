import { settingsDesignTokens as c } from '../../protocol/methods/branding/index.js';
import { actionClassOf } from '../approval/index.js';
import { handler } from '../core/handler.js';
import { commitFoundation, versionEntity } from './commit.js';
import { foundationAt, heads } from './model.js';
import { applyMergePatch, mergePatchBetween } from './patch.js';

/*
 * settings.getDesignTokens / settings.saveDesignTokens: the foundation's tokens seen from settings (one source).
 * A save is the foundation's commit with a tokens-only merge patch: the same checks, the same hold for an agent, a
 * new brand version; ifVersion is the brand version.
 */

export const getDesignTokens = handler(c.getDesignTokens, async (ctx) => {
  const h = await heads(ctx.q, ctx.orgId);
  const f = await foundationAt(ctx.q, ctx.orgId, h.foundationVersion);
  return { tokens: f.doc.tokens, version: f.version };
});

export const saveDesignTokens = handler(c.saveDesignTokens, async (ctx, p) => {
  const d = await commitFoundation(ctx, {
    baseVersion: p.ifVersion,
    baseField: 'ifVersion',
    next: (live) => applyMergePatch(live, { tokens: mergePatchBetween(live.tokens, p.tokens) }),
    kind: 'tokens.save',
    hold: { actionClass: actionClassOf(ctx.method.name), subjectId: versionEntity, act: "saves the org's design tokens" },
    params: p,
    event: (done) => [
      'settings.tokens.save',
      versionEntity(done.version),
      {
        brandVersion: done.version,
        baseVersion: done.baseVersion,
        paths: done.paths,
        hash: done.sha256,
        designHead: done.designHead,
        approvalId: done.approvalId,
      },
    ],
  });
  return { tokens: d.doc.tokens, version: d.version, changed: d.changed, paths: d.paths };
});
