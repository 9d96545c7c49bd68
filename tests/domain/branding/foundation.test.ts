import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsAfter, head, mutate, noop, ok, read, refused } from '../../helpers/calls.js';
import { brandOrg, FOUNDATION, save, versionOf, type BrandOrg } from './kit.js';

/** branding.getFoundation, getVoice, saveFoundation (patches), restoreFoundation, listVersions: the foundation's life. */

let o: BrandOrg;
beforeAll(async () => {
  o = await brandOrg();
});
afterAll(() => o.s.close());

describe('the foundation', () => {
  it('starts empty at version 0; a save is version 1 with contrasts, paths and the design head in its event', async () => {
    const empty = await read(o.s, 'branding.getFoundation', {});
    expect(empty).toMatchObject({ version: 0, latestVersion: 0, foundation: { name: '', tokens: {}, usage: [] }, proposals: [], savedBy: null });
    const { result, event } = await mutate(o.s, 'branding.saveFoundation', { baseVersion: 0, patch: FOUNDATION }, 'branding.foundation.save', {
      entityId: () => 'brand_v1',
    });
    expect(result).toMatchObject({ version: 1, changed: true, proposal: null });
    expect(result.contrasts.map((c: any) => c.passes)).toEqual([true, true]);
    expect(result.contrasts[0]).toMatchObject({ fgHex: '#1a1a1a', bgHex: '#ffffff', minimum: 4.5 });
    expect(result.foundation.voice.rules[0].id).toMatch(/^vr_[0-9a-f]{16}$/);
    expect(event.payload).toMatchObject({
      version: 1,
      baseVersion: 0,
      proposalId: null,
      hash: result.sha256,
      designHead: { seq: 0, hash: '' },
      approvalId: null,
    });
    expect(event.payload.paths).toEqual(expect.arrayContaining(['name', 'logos.primary', 'tokens.color.brand.primary', 'usage', 'voice.rules']));
    const got = await read(o.s, 'branding.getFoundation', {});
    expect(got).toMatchObject({ version: 1, latestVersion: 1, sha256: result.sha256, savedBy: o.owner.id });
    expect(got.foundation).toEqual(result.foundation);
  });

  it('stale baseVersion: CONFLICT naming the head; the same patch again: changed:false; null removes', async () => {
    const v = await versionOf(o);
    await refused(o.s, 'branding.saveFoundation', { baseVersion: v - 1, patch: { name: 'X' } }, 'CONFLICT', {
      message: new RegExp(`is at version ${v}, not ${v - 1}: read it \\(branding.getFoundation\\) and retry with baseVersion ${v}`),
    });
    const same = await noop(o.s, 'branding.saveFoundation', { baseVersion: v, patch: { name: FOUNDATION.name } }, 'branding.foundation.save');
    expect(same.version).toBe(v);
    const removed = await save(o, { logos: { primary: null } });
    expect(removed.foundation.logos).toEqual({});
    expect(removed.paths).toEqual(['logos.primary']);
  });

  it('bad inputs write nothing: alias cycle, unknown alias, wrong type, failing pair, unknown field, too big, both or neither of patch and proposalId', async () => {
    const v = await versionOf(o);
    const bad = async (patch: unknown, message: RegExp) => refused(o.s, 'branding.saveFoundation', { baseVersion: v, patch }, 'BAD_REQUEST', { message });
    await bad({ tokens: { color: { a: { $value: '{color.b}' }, b: { $value: '{color.a}' } } } }, /^tokens\.color\.a: alias cycle color\.a→color\.b→color\.a$/);
    await bad({ tokens: { color: { x: { $value: '{color.nope}' } } } }, /^tokens\.color\.x: alias \{color\.nope\} names no token/);
    await bad({ tokens: { space: { lg: { $value: '{color.text}' } } } }, /^tokens\.space\.lg\.\$value: alias \{color\.text\} is a color, not a dimension/);
    await bad({ tokens: { space: { lg: { $value: '16px' } } } }, /^tokens\.space\.lg\.\$value: must be \{value, unit\}/);
    await bad({ tokens: { misc: { n: { $value: 3 } } } }, /^tokens\.misc\.n: no \$type/);
    await bad({ tokens: { color: { $type: 'colour' } } }, /^tokens\.color\.\$type: must be a DTCG type/);
    await bad({ usage: [FOUNDATION.usage[0], { fg: '#949494', bg: '#ffffff', use: 'text' }] }, /^usage\.1: 3\.0:1 below 4\.5:1/);
    await bad({ usage: [{ fg: '{space.md}', bg: '#fff', use: 'ui' }] }, /^usage\.0\.fg: \{space\.md\} is a dimension, not a color/);
    await bad({ colour: 'red' }, /^patch: unknown field\(s\) colour/);
    await bad({ logos: { banner: 'img_0123456789abcdef' } }, /^logos: unknown field\(s\) banner/);
    await bad({ logos: { mark: 'fil_0123' } }, /^logos\.mark: must be an id of the form img_/);
    await bad(
      { tokens: { big: { $type: 'number', ...Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`t${i}`, { $value: i }])) } } },
      /^tokens: \d+ bytes, above 65536/,
    );
    await refused(o.s, 'branding.saveFoundation', { baseVersion: v }, 'BAD_REQUEST', { message: /^patch: give exactly one of patch or proposalId/ });
    expect(await versionOf(o)).toBe(v);
  });

  it('#767676 on white is 4.54:1 and passes for text', async () => {
    const r = await save(o, { usage: [{ fg: '#767676', bg: '#fff', use: 'text' }] });
    expect(r.contrasts[0]).toMatchObject({ ratio: 4.54, passes: true });
    await save(o, { usage: FOUNDATION.usage });
  });

  it('getVoice: JSON or one prompt block citing the rule ids', async () => {
    const json = await read(o.s, 'branding.getVoice', { format: 'json' });
    expect(json.voice.tone).toBe('Plain and warm.');
    const prompt = await read(o.s, 'branding.getVoice', { format: 'prompt' }, o.designer.key);
    expect(prompt.voice).toBeNull();
    expect(prompt.prompt).toContain(`[${json.voice.rules[0].id}] Say what happened, then what to do. Never use: "synergy".`);
    expect(prompt.prompt).toContain('- (email) Your invoice is paid.');
  });

  it('restoreFoundation: a past version as a new one; listVersions cites each ledger event; a library version is not a foundation', async () => {
    const v = await versionOf(o);
    const { result, event } = await mutate(o.s, 'branding.restoreFoundation', { version: 1, baseVersion: v }, 'branding.foundation.restore');
    expect(result).toMatchObject({ version: v + 1, fromVersion: 1, changed: true });
    expect(result.foundation).toEqual((await ok(o.s, 'branding.getFoundation', { version: 1 })).foundation);
    expect(event.payload).toMatchObject({ version: v + 1, fromVersion: 1, designHead: { seq: 0 } });
    const list = await read(o.s, 'branding.listVersions', { scope: 'foundation', limit: 2 }, o.viewer.key);
    expect(list.versions[0]).toMatchObject({
      version: v + 1,
      kind: 'foundation.restore',
      fromVersion: 1,
      actor: o.owner.id,
      auditRef: { ledgerSeq: event.seq, designSeq: null },
    });
    expect(list.nextCursor).toBe(v);
    const rest = await read(o.s, 'branding.listVersions', { cursor: list.nextCursor });
    expect(rest.versions.at(-1)).toMatchObject({ version: 1, kind: 'foundation.save' });
    expect((await read(o.s, 'branding.listVersions', { itemId: 'tpl_0123456789abcdef' })).versions).toEqual([]);
    await refused(o.s, 'branding.restoreFoundation', { version: 99, baseVersion: v + 1 }, 'NOT_FOUND', { message: /brand version 99 not found/ });
    await refused(o.s, 'branding.getFoundation', { version: 99 }, 'NOT_FOUND');
    // Past an integer column's range: a named BAD_REQUEST, never a 5xx from the database.
    const huge = Number.MAX_SAFE_INTEGER;
    await refused(o.s, 'branding.listVersions', { cursor: huge }, 'BAD_REQUEST', { message: /^cursor: must be at most 2147483647/ });
    await refused(o.s, 'branding.getFoundation', { version: huge }, 'BAD_REQUEST', { message: /^version: must be at most/ });
    await refused(o.s, 'branding.restoreFoundation', { version: 1, baseVersion: v }, 'CONFLICT', { message: new RegExp(`retry with baseVersion ${v + 1}`) });
  });

  it('scopes: design.read reads, admin saves; another org sees its own empty foundation', async () => {
    await refused(o.s, 'branding.saveFoundation', { baseVersion: 0, patch: { name: 'x' } }, 'FORBIDDEN_SCOPE', {
      key: o.designer.key,
      message: /^missing scope admin/,
    });
    await refused(o.s, 'branding.restoreFoundation', { version: 1, baseVersion: 0 }, 'FORBIDDEN_SCOPE', { key: o.agent.key, message: /^missing scope admin/ });
    await refused(o.s, 'branding.listVersions', {}, 'FORBIDDEN_SCOPE', { key: o.designer.key, message: /^missing scope org.read/ });
    expect((await read(o.other, 'branding.getFoundation', {})).version).toBe(0);
    const before = await head(o.s);
    await ok(o.s, 'branding.getFoundation', {}, o.designer.key);
    expect(await eventsAfter(o.s, before)).toEqual([]);
  });
});
