import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, rpc } from '../../helpers/calls.js';
import { download } from '../files/drive-kit.js';
import { brandOrg, designSeq, FOUNDATION, libraryRefused, libraryWrite, PACKAGE, save, type BrandOrg } from './kit.js';

/*
 * Starter templates and regeneration: regenerateTemplates adds the six recipes' starters from the live foundation
 * (token refs, the logo or the name, the voice's copy), each renders at its size; again it changes nothing;
 * regenerateTemplate reruns one (a hand-amended one CONFLICT unless force; a cloned one has no recipe); a deleted
 * starter comes back; regenerate makes one version with a thumbnail of each active template. R writes: one design
 * record each, no ledger event.
 */

const SIZES: Record<string, [number, number]> = {
  'social-square': [1080, 1080],
  'social-story': [1080, 1920],
  banner: [1500, 500],
  slide: [1920, 1080],
  'email-header': [600, 200],
  'business-card': [1050, 600],
};

let o: BrandOrg;
let starters: Record<string, string>;
beforeAll(async () => {
  o = await brandOrg();
  await save(o, FOUNDATION);
});
afterAll(() => o.s.close());

describe('starters', () => {
  it('regenerateTemplates adds the six starters from the live foundation as one version; each renders at its size; again: changed:false', async () => {
    const first = await libraryWrite(o, 'branding.regenerateTemplates', { idempotencyId: 'starters' });
    expect(first).toMatchObject({ changed: true, version: 2 });
    expect(first.templates.map((t: any) => [t.recipe, t.outcome, t.revision])).toEqual(Object.keys(SIZES).map((r) => [r, 'added', 1]));
    starters = Object.fromEntries(first.templates.map((t: any) => [t.recipe, t.templateId]));
    const square = (await ok(o.s, 'branding.exportTemplate', { templateId: starters['social-square'] })).template;
    expect(square).toMatchObject({ origin: 'recipe', kind: 'social-post', size: { width: 1080, height: 1080 } });
    const body = JSON.stringify(square.body);
    expect(body).toContain('{color.surface}');
    expect(body).toContain('{font.body}');
    // The voice's shortest example is the copy; the foundation's logo is no image of the library, so the name shows.
    expect(body).toContain('Your invoice is paid.');
    expect(body).toContain('Acme Books');
    const story = (await ok(o.s, 'branding.exportTemplate', { templateId: starters['social-story'] })).template;
    expect(JSON.stringify(story.body)).toContain('"backgroundColor":"{color.brand.primary}"');
    for (const [recipe, [width, height]] of Object.entries(SIZES)) {
      const r = await ok(o.s, 'branding.renderTemplate', { templateId: starters[recipe], values: {} });
      const meta = await sharp((await download(o.s, r.url)).bytes).metadata();
      expect([recipe, meta.width, meta.height]).toEqual([recipe, width, height]);
    }
    const again = await libraryWrite(o, 'branding.regenerateTemplates', { idempotencyId: 'starters-again' });
    expect(again).toMatchObject({ changed: false, version: 2 });
    expect(again.templates.every((t: any) => t.outcome === 'unchanged')).toBe(true);
  });

  it('regenerateTemplate reruns the recipe on a changed foundation; amended by hand: CONFLICT unless force; undone: it regenerates again', async () => {
    await save(o, { voice: { examples: [{ text: 'Books that balance.', channel: 'social' }] } });
    const id = starters['social-square'];
    const regen = await libraryWrite(o, 'branding.regenerateTemplate', { templateId: id, idempotencyId: 'r1' });
    expect(regen).toMatchObject({ changed: true, recipe: 'social-square', template: { revision: 2 } });
    expect(JSON.stringify(regen.template.body)).toContain('Books that balance.');
    const amended = await libraryWrite(o, 'branding.amendTemplate', { templateId: id, baseRevision: 2, name: 'Mine', idempotencyId: 'hand' });
    await libraryRefused(
      o,
      'branding.regenerateTemplate',
      { templateId: id, idempotencyId: 'r2' },
      'CONFLICT',
      new RegExp(`^template ${id} was amended by hand since its recipe made it \\(now revision 3\\): pass force`),
    );
    const all = await libraryWrite(o, 'branding.regenerateTemplates', { idempotencyId: 'skip' });
    expect(all.templates.find((t: any) => t.templateId === id)).toMatchObject({ outcome: 'skipped', revision: 3 });
    await libraryWrite(o, 'branding.undo', { version: amended.version, idempotencyId: 'undo-hand' });
    expect((await libraryWrite(o, 'branding.regenerateTemplate', { templateId: id, idempotencyId: 'r3' })).changed).toBe(false);
    await libraryWrite(o, 'branding.amendTemplate', { templateId: id, baseRevision: 4, name: 'Mine again', idempotencyId: 'hand2' });
    const forced = await libraryWrite(o, 'branding.regenerateTemplate', { templateId: id, force: true, idempotencyId: 'r4' });
    expect(forced).toMatchObject({ changed: true, template: { revision: 6, name: 'Social post (square)' } });
  });

  it('a cloned template has no recipe; a deleted starter: CONFLICT, and regenerateTemplates brings it back; misuse', async () => {
    const clone = (await libraryWrite(o, 'branding.cloneTemplate', { package: PACKAGE, idempotencyId: 'c' })).template;
    await libraryRefused(
      o,
      'branding.regenerateTemplate',
      { templateId: clone.id, idempotencyId: 'rc' },
      'CONFLICT',
      new RegExp(`^template ${clone.id} has no recipe \\(origin cloned\\): only a starter regenerates`),
    );
    const banner = starters.banner;
    await libraryWrite(o, 'branding.deleteTemplate', { templateId: banner, idempotencyId: 'del' });
    await libraryRefused(o, 'branding.regenerateTemplate', { templateId: banner, idempotencyId: 'rd' }, 'CONFLICT', /is deleted .* to regenerate it$/);
    const back = await libraryWrite(o, 'branding.regenerateTemplates', { idempotencyId: 'back' });
    expect(back.templates.find((t: any) => t.templateId === banner)).toMatchObject({ outcome: 'regenerated', revision: 3 });
    expect((await ok(o.s, 'branding.exportTemplate', { templateId: banner })).template.status).toBe('active');
    await libraryRefused(o, 'branding.regenerateTemplates', { idempotencyId: 'x' }, 'FORBIDDEN_SCOPE', /^missing scope admin/, o.designer.key);
    await libraryRefused(o, 'branding.regenerateTemplate', { templateId: banner, idempotencyId: 'x', extra: 1 }, 'BAD_REQUEST', /extra/);
    await libraryRefused(o, 'branding.regenerateTemplates', { idempotencyId: '' }, 'BAD_REQUEST', /^idempotencyId: must be at least 1 character$/);
    const res = await rpc(o.other, 'branding.regenerateTemplate', { templateId: banner, idempotencyId: 'other' });
    expect(res.body.error).toMatchObject({ code: 'NOT_FOUND', message: `template ${banner} not found` });
  });

  it('regenerate: one version, one design record, a thumbnail 320 px wide of every active template; again: changed:false, the same thumbnails', async () => {
    // A palette change shows through the refs (no new revision); a new voice example changes the copy (a new revision).
    await save(o, { tokens: { color: { brand: { primary: { $value: '#0a4f96' } } } }, voice: { examples: [{ text: 'Count on it.', channel: 'social' }] } });
    const seq = await designSeq(o);
    const kit = await libraryWrite(o, 'branding.regenerate', { idempotencyId: 'kit' });
    expect(await designSeq(o)).toBe(seq + 1);
    const live = (await ok(o.s, 'branding.listTemplates', {})).templates;
    expect(kit.thumbnails.map((t: any) => t.templateId).sort()).toEqual(live.map((t: any) => t.id).sort());
    expect(kit.thumbnails.every((t: any) => t.width === 320 && t.renderId.startsWith('rnd_'))).toBe(true);
    expect(kit.images).toEqual({ regenerated: 0, available: true });
    const versions = (await ok(o.s, 'branding.listVersions', { scope: 'library', limit: 1 })).versions;
    expect(kit).toMatchObject({ changed: true });
    expect(versions[0]).toMatchObject({ kind: 'kit.regenerate', version: kit.version });
    expect(kit.templates.filter((t: any) => t.outcome === 'regenerated').map((t: any) => t.recipe)).toEqual(['social-square']);
    const again = await libraryWrite(o, 'branding.regenerate', { idempotencyId: 'kit-again' });
    expect(again.changed).toBe(false);
    expect(again.thumbnails).toEqual(kit.thumbnails);
  });
});
