import StyleDictionary from 'style-dictionary';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileAndApprove, held, mutate, noop, ok, read, refused } from '../../helpers/calls.js';
import { brandOrg, FOUNDATION, TOKENS, type BrandOrg } from './kit.js';

/** settings.getDesignTokens / saveDesignTokens: views of the foundation's tokens, saved through its commit (scenario 1). */

let o: BrandOrg;
beforeAll(async () => {
  o = await brandOrg();
  await ok(o.s, 'branding.saveFoundation', { baseVersion: 0, patch: FOUNDATION });
});
afterAll(() => o.s.close());

/** The CSS a Style Dictionary build of these tokens gives (DTCG, the css transform group). */
async function css(tokens: Record<string, unknown>): Promise<string> {
  const sd = new StyleDictionary({
    tokens: tokens as never,
    log: { verbosity: 'silent' },
    platforms: { css: { transformGroup: 'css', files: [{ destination: 'tokens.css', format: 'css/variables' }] } },
  });
  const [file] = await sd.formatPlatform('css');
  return String(file.output);
}

describe('design tokens', () => {
  it('scenario 1: a human saves; getDesignTokens matches; stale ifVersion: CONFLICT; the build has --color-brand-primary', async () => {
    expect(await read(o.s, 'settings.getDesignTokens', {}, o.viewer.key)).toEqual({ tokens: TOKENS, version: 1 });
    const tokens = { ...TOKENS, color: { ...TOKENS.color, brand: { ...TOKENS.color.brand, primary: { $value: '#0a4f96' } } }, font: undefined };
    delete tokens.font;
    const { result, event } = await mutate(o.s, 'settings.saveDesignTokens', { ifVersion: 1, tokens }, 'settings.tokens.save', { entityId: () => 'brand_v2' });
    expect(result).toMatchObject({ version: 2, changed: true, paths: ['tokens.color.brand.primary', 'tokens.font.body'] });
    expect(event.payload).toMatchObject({ brandVersion: 2, baseVersion: 1, hash: expect.any(String), designHead: { seq: 0, hash: '' } });
    const got = await read(o.s, 'settings.getDesignTokens', {});
    expect(got).toEqual({ tokens, version: 2 });
    expect((await ok(o.s, 'branding.getFoundation', {})).foundation.tokens).toEqual(tokens);
    await refused(o.s, 'settings.saveDesignTokens', { ifVersion: 1, tokens }, 'CONFLICT', { message: /is at version 2, not 1: .* retry with ifVersion 2/ });
    await noop(o.s, 'settings.saveDesignTokens', { ifVersion: 2, tokens }, 'settings.tokens.save');
    const built = await css(got.tokens);
    expect(built).toContain('--color-brand-primary: #0a4f96;');
    expect(built).toContain('--color-link: #0a4f96;');
  });

  it('the same checks as a save: a cycle, a token the usage pairs need removed; admin only', async () => {
    const cyc = { color: { $type: 'color', a: { $value: '{color.b}' }, b: { $value: '{color.a}' } } };
    await refused(o.s, 'settings.saveDesignTokens', { ifVersion: 2, tokens: cyc }, 'BAD_REQUEST', {
      message: /^tokens\.color\.a: alias cycle color\.a→color\.b→color\.a$/,
    });
    await refused(o.s, 'settings.saveDesignTokens', { ifVersion: 2, tokens: { space: TOKENS.space } }, 'BAD_REQUEST', {
      message: /^usage\.0\.fg: \{color\.text\} names no token/,
    });
    await refused(o.s, 'settings.saveDesignTokens', { ifVersion: 2, tokens: {} }, 'FORBIDDEN_SCOPE', { key: o.designer.key, message: /^missing scope admin/ });
    await refused(o.s, 'settings.getDesignTokens', {}, 'FORBIDDEN_SCOPE', { key: o.designer.key, message: /^missing scope org.read/ });
  });

  it("an agent's save holds as settings.save_design_tokens and saves after approval", async () => {
    const tokens = { ...(await ok(o.s, 'settings.getDesignTokens', {})).tokens, radius: { $type: 'dimension', sm: { $value: { value: 4, unit: 'px' } } } };
    const approval = await held(o.s, 'settings.saveDesignTokens', { ifVersion: 2, tokens }, { key: o.adminAgent.key, holdKind: 'settings.signature.hold' });
    expect(approval.subject.summary).toMatch(
      /^An agent saves the org's design tokens as version 3 \(on 2\): tokens\.radius\.sm \(none\) → \{"unit":"px","value":4\}$/,
    );
    const approvalId = await fileAndApprove(o.s, approval, { requester: o.adminAgent.key });
    const { result } = await mutate(o.s, 'settings.saveDesignTokens', { ifVersion: 2, tokens, approvalId }, 'settings.tokens.save', { key: o.adminAgent.key });
    expect(result.version).toBe(3);
  });
});
