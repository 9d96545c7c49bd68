import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, read, rpc } from '../../helpers/calls.js';
import { BODY, brandOrg, designSeq, FIELDS, FOUNDATION, libraryRefused, libraryWrite, PACKAGE, save, type BrandOrg } from './kit.js';

/*
 * The templates: clone (from a package or the library), amend, delete as R writes (one design record each, no
 * ledger event, replayed by idempotencyId); list and export; and each method's misuse: NOT_FOUND for another org's
 * or an unknown id, CONFLICT (stale revision, deleted), BAD_REQUEST naming the field, FORBIDDEN_SCOPE.
 */

let o: BrandOrg;
let tpl: any;
beforeAll(async () => {
  o = await brandOrg();
  await save(o, FOUNDATION);
  tpl = (await libraryWrite(o, 'branding.cloneTemplate', { package: PACKAGE, idempotencyId: 'first' })).template;
});
afterAll(() => o.s.close());

const amend = (params: Record<string, unknown>) => ({ templateId: tpl.id, baseRevision: 1, idempotencyId: `a-${Math.random()}`, ...params });

describe('templates', () => {
  it('a package cloned: revision 1 at the next brand version, its unknown token a literal; listed and exported as a package', async () => {
    expect(tpl).toMatchObject({ kind: 'social-post', name: 'Launch post', origin: 'cloned', status: 'active', revision: 1, version: 2 });
    expect(tpl.fields).toEqual([
      { name: 'headline', type: 'text', maxLength: 80 },
      { name: 'subline', type: 'text', maxLength: 200 },
    ]);
    expect(tpl.body.children[3].style.backgroundColor).toBe('#ff0080');
    expect(tpl.body.children[0].children[0].style.color).toBe('{color.text}');
    const list = await read(o.s, 'branding.listTemplates', { kind: 'social-post', query: 'launch' });
    expect(list.templates.map((t: any) => [t.id, t.revision])).toEqual([[tpl.id, 1]]);
    expect(list.templates[0].body).toBeUndefined();
    const { package: pkg, template } = await read(o.s, 'branding.exportTemplate', { templateId: tpl.id });
    expect(template.sha256).toBe(tpl.sha256);
    expect(pkg.tokens['color.text']).toEqual({ $type: 'color', $value: '#1a1a1a' });
    expect(pkg.tokens['space.md']).toEqual({ $type: 'dimension', $value: { value: 16, unit: 'px' } });
    expect(pkg.images).toEqual([{ imageId: 'img_0123456789abcdef', sha256: null }]);
    expect(pkg.source).toMatchObject({ templateId: tpl.id, revision: 1, foundationVersion: 1 });
    // The package imports elsewhere: another org with no foundation gets every ref as a literal.
    const copy = (await ok(o.other, 'branding.cloneTemplate', { package: pkg, idempotencyId: 'import' })).template;
    expect(copy.body.style).toMatchObject({ backgroundColor: '#ffffff', padding: '16px' });
    expect(copy.body.children[0].children[0].style.fontFamily).toBe('Inter, sans-serif');
  });

  it('amend: a new revision; retried: the stored result, one record; the same id with other params: CONFLICT; stale base: CONFLICT; the same content: changed:false', async () => {
    const params = amend({ size: { width: 1200, height: 630 }, name: 'Launch (wide)', idempotencyId: 'wide' });
    const first = await libraryWrite(o, 'branding.amendTemplate', params);
    expect(first).toMatchObject({ changed: true, version: 3, template: { revision: 2, size: { width: 1200, height: 630 }, name: 'Launch (wide)' } });
    const seq = await designSeq(o);
    expect(await ok(o.s, 'branding.amendTemplate', params)).toEqual(first);
    expect(await designSeq(o)).toBe(seq);
    await libraryRefused(o, 'branding.amendTemplate', { ...params, name: 'Other' }, 'CONFLICT', /^idempotencyId: already used for branding.amendTemplate/);
    await libraryRefused(
      o,
      'branding.amendTemplate',
      amend({ name: 'X' }),
      'CONFLICT',
      new RegExp(`template ${tpl.id} is at revision 2, not 1: read it \\(branding.exportTemplate\\) and retry with baseRevision 2`),
    );
    const same = await libraryWrite(o, 'branding.amendTemplate', amend({ baseRevision: 2, name: 'Launch (wide)' }));
    expect(same).toMatchObject({ changed: false, version: 3, template: { revision: 2 } });
    const fields = await libraryWrite(o, 'branding.amendTemplate', amend({ baseRevision: 2, fields: [...FIELDS, { name: 'photo', type: 'image' }] }));
    expect(fields.template).toMatchObject({ revision: 3, fields: [{}, {}, { name: 'photo', type: 'image', maxLength: null }] });
  });

  it('bad bodies and fields: BAD_REQUEST naming the field, nothing recorded', async () => {
    const bad = (params: Record<string, unknown>, message: RegExp) =>
      libraryRefused(o, 'branding.amendTemplate', amend({ baseRevision: 3, ...params }), 'BAD_REQUEST', message);
    const child = (node: Record<string, unknown>) => ({ ...BODY, children: [...BODY.children.slice(0, 2), node] });
    await bad(
      { body: child({ type: 'shape', shape: 'rect', style: { position: 'fixed' } }) },
      /^body\.children\.2\.style\.position: must be one of relative, absolute$/,
    );
    await bad({ body: child({ type: 'shape', shape: 'rect', style: { float: 'left' } }) }, /^body\.children\.2\.style\.float: not a style the renderer draws/);
    await bad(
      { body: child({ type: 'shape', shape: 'rect', style: { color: '{color.nope}' } }) },
      /^body\.children\.2\.style\.color: \{color\.nope\} names no token/,
    );
    await bad(
      { body: child({ type: 'shape', shape: 'rect', style: { width: '{color.text}' } }) },
      /^body\.children\.2\.style\.width: \{color\.text\} is a color, not a dimension or number$/,
    );
    await bad(
      { body: child({ type: 'shape', shape: 'rect', style: { backgroundImage: 'url(http://x)' } }) },
      /^body\.children\.2\.style\.backgroundImage: not a gradient/,
    );
    await bad(
      { body: child({ type: 'text', text: 'Hi {{who}}' }) },
      /^body\.children\.2\.text: \{\{who\}\} names no text field \(fields: headline, subline, photo\)$/,
    );
    await bad({ body: child({ type: 'text', text: '{{#headline}}x{{/headline}}' }) }, /^body\.children\.2\.text: only \{\{field\}\} slots: no sections/);
    await bad({ body: child({ type: 'text', text: '{{> partial}}' }) }, /^body\.children\.2\.text: only \{\{field\}\} slots/);
    await bad({ body: child({ type: 'text', text: '{{headline' }) }, /^body\.children\.2\.text: not a valid text with \{\{field\}\} slots/);
    await bad({ body: child({ type: 'image', src: '{{headline}}' }) }, /^body\.children\.2\.src: \{\{headline\}\} names no image field$/);
    await bad({ body: child({ type: 'image', src: 'https://x/y.png' }) }, /^body\.children\.2\.src: must be an image id/);
    await bad({ body: child({ type: 'video' }) }, /^body\.children\.2\.type: must be one of frame, stack, text, image, shape$/);
    await bad({ body: child({ type: 'text', text: 'x', children: [] }) }, /^body\.children\.2\.children: unknown field for a text node/);
    await bad({ body: { type: 'stack' } }, /^body\.type: the root must be a frame$/);
    await bad({ fields: [FIELDS[0], FIELDS[0]] }, /^fields\.1\.name: headline is used twice$/);
    await bad({ fields: [{ name: 'photo', type: 'image', maxLength: 3 }] }, /^fields\.0\.maxLength: only a text field has a maxLength$/);
    await bad({ fields: [FIELDS[0]] }, /^body\.children\.0\.children\.1\.text: \{\{subline\}\} names no text field/);
    await bad({}, /^body: give at least one of body, fields, size or name$/);
    await bad({ size: { width: 10, height: 10 } }, /^size\.width: must be >= 16$/);
    await bad({ idempotencyId: '' }, /^idempotencyId: must be at least 1 character$/);
    const deep = Array.from({ length: 13 }).reduce<Record<string, unknown>>((inner) => ({ type: 'stack', children: [inner] }), { type: 'text', text: 'x' });
    await bad({ body: { type: 'frame', children: [deep] } }, /nested more than 12 deep$/);
  });

  it('clone from the library; exactly one source; delete hides it, again changed:false; a deleted one cannot be amended or cloned', async () => {
    const dup = (await libraryWrite(o, 'branding.cloneTemplate', { templateId: tpl.id, name: 'Copy', idempotencyId: 'dup' })).template;
    expect(dup).toMatchObject({ name: 'Copy', origin: 'cloned', revision: 1, size: { width: 1200, height: 630 } });
    await libraryRefused(o, 'branding.cloneTemplate', { idempotencyId: 'none' }, 'BAD_REQUEST', /^templateId: give exactly one of templateId or package$/);
    await libraryRefused(
      o,
      'branding.cloneTemplate',
      { templateId: tpl.id, package: PACKAGE, idempotencyId: 'both' },
      'BAD_REQUEST',
      /^templateId: give exactly one/,
    );
    const badPkg = { ...PACKAGE, tokens: {} };
    await libraryRefused(
      o,
      'branding.cloneTemplate',
      { package: badPkg, idempotencyId: 'lit' },
      'BAD_REQUEST',
      /^package\.template\.body\.children\.3\.style\.backgroundColor: \{color\.promo\} names no token/,
    );
    const gone = await libraryWrite(o, 'branding.deleteTemplate', { templateId: dup.id, idempotencyId: 'del' });
    expect(gone).toMatchObject({ changed: true, template: { status: 'deleted', revision: 2 } });
    expect((await libraryWrite(o, 'branding.deleteTemplate', { templateId: dup.id, idempotencyId: 'del-again' })).changed).toBe(false);
    expect((await ok(o.s, 'branding.listTemplates', {})).templates.map((t: any) => t.id)).not.toContain(dup.id);
    expect((await ok(o.s, 'branding.listTemplates', { includeDeleted: true })).templates.map((t: any) => t.id)).toContain(dup.id);
    const deleted = new RegExp(`template ${dup.id} is deleted \\(revision 2\\): bring it back \\(branding.undo or branding.restoreVersion\\)`);
    await libraryRefused(o, 'branding.amendTemplate', { templateId: dup.id, baseRevision: 2, name: 'Y', idempotencyId: 'am-del' }, 'CONFLICT', deleted);
    await libraryRefused(o, 'branding.cloneTemplate', { templateId: dup.id, idempotencyId: 'cl-del' }, 'CONFLICT', deleted);
    // A past revision still exports.
    expect((await ok(o.s, 'branding.exportTemplate', { templateId: dup.id, revision: 1 })).template).toMatchObject({ revision: 1, status: 'active' });
  });

  it("another org's template or an unknown one: NOT_FOUND; no admin: FORBIDDEN_SCOPE; no org.read: FORBIDDEN_SCOPE for exportTemplate", async () => {
    for (const [method, params] of [
      ['branding.amendTemplate', { templateId: tpl.id, baseRevision: 1, name: 'Z', idempotencyId: 'nf' }],
      ['branding.deleteTemplate', { templateId: tpl.id, idempotencyId: 'nf' }],
      ['branding.cloneTemplate', { templateId: tpl.id, idempotencyId: 'nf' }],
      ['branding.exportTemplate', { templateId: tpl.id }],
    ] as const) {
      const res = await rpc(o.other, method, params);
      expect(res.body.error, `${method} from another org`).toMatchObject({ code: 'NOT_FOUND', message: `template ${tpl.id} not found` });
    }
    await libraryRefused(
      o,
      'branding.exportTemplate',
      { templateId: tpl.id, revision: 99 },
      'NOT_FOUND',
      new RegExp(`template ${tpl.id} revision 99 not found`),
    );
    await libraryRefused(o, 'branding.deleteTemplate', { templateId: 'tpl_0123456789abcdef', idempotencyId: 'x' }, 'NOT_FOUND');
    await libraryRefused(o, 'branding.amendTemplate', amend({ name: 'D' }), 'FORBIDDEN_SCOPE', /^missing scope admin/, o.designer.key);
    await libraryRefused(o, 'branding.deleteTemplate', { templateId: tpl.id, idempotencyId: 'd' }, 'FORBIDDEN_SCOPE', /^missing scope admin/, o.designer.key);
    await libraryRefused(o, 'branding.exportTemplate', { templateId: tpl.id }, 'FORBIDDEN_SCOPE', /^missing scope org\.read/, o.designer.key);
    expect((await ok(o.s, 'branding.listTemplates', {}, o.designer.key)).templates.length).toBeGreaterThan(0);
  });
});
