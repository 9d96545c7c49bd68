import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryServer, type CanaryServer } from '../../helpers/canary.js';
import { anyValue, fuzzAtRows, oddStrings } from '../../helpers/fuzz.js';
import { PACKAGE, TOKENS } from './kit.js';

/*
 * Redaction for the library's images and the outputs: a canary in an image's alt text and tags, a generation's
 * prompt, a text rewritten in the voice and a render's values shows in no event, design record, AI audit record or
 * log line, while the caller reads its words back. Then the ten image, output and regeneration methods fuzzed at
 * real rows: never a 5xx.
 */

const CANARY = 'Wombat-Canary-7731';
let s: CanaryServer;
beforeAll(async () => {
  s = await canaryServer();
  const foundation = {
    name: 'Canary Co',
    tokens: TOKENS,
    usage: [{ fg: '{color.text}', bg: '{color.surface}', use: 'text' }],
    voice: { tone: 'Plain.', rules: [{ text: 'Say it plainly.', avoid: ['leverage'], prefer: 'use' }], examples: [] },
  };
  const res = await s.client.rpc('branding.saveFoundation', { baseVersion: 0, patch: foundation });
  expect(res.body.ok, res.raw.slice(0, 300)).toBe(true);
});
afterAll(() => s.close());

const call = async (method: string, params: object) => {
  const res = await s.client.rpc(method, params);
  expect(res.body.ok, `${method}: ${res.raw.slice(0, 300)}`).toBe(true);
  return res.body.result;
};

const png = () =>
  sharp({ create: { width: 64, height: 48, channels: 3, background: '#0b5cad' } })
    .png()
    .toBuffer();

describe('branding images and outputs: redaction canary and fuzz', () => {
  it('no alt text, tag, prompt, rewritten text or render value in any event, design record, AI audit record or log line', async () => {
    const uploaded = await call('branding.uploadImage', {
      contentBase64: (await png()).toString('base64'),
      altText: `Alt ${CANARY}`,
      tags: [`tag-${CANARY}`],
      idempotencyId: `up ${CANARY}`,
    });
    expect(uploaded.asset.altText).toBe(`Alt ${CANARY}`);
    await call('branding.amendArtifact', { artifactId: uploaded.asset.id, baseRevision: 1, altText: `Alt two ${CANARY}`, idempotencyId: 'amend-1' });
    const generated = await call('branding.generateImage', { prompt: `Harbour ${CANARY}`, style: 'pattern', size: { width: 256, height: 256 }, seed: 3 });
    expect(generated.image.altText).toBe(`Harbour ${CANARY}`);
    const rewritten = await call('branding.rewriteInVoice', { text: `We leverage ${CANARY} daily.`, channel: 'email' });
    expect(rewritten.text).toContain(CANARY);
    expect(rewritten.text).not.toContain('leverage');
    const { template } = await call('branding.cloneTemplate', { package: PACKAGE, idempotencyId: 'clone-1' });
    const rendered = await call('branding.renderTemplate', { templateId: template.id, values: { headline: `H ${CANARY}`, subline: 'x' }, format: 'svg' });
    expect(rendered.renderId).toMatch(/^rnd_/);
    await call('branding.exportKit', { formats: ['css'], include: ['tokens', 'templates'] });
    await call('branding.regenerateTemplates', { idempotencyId: 'starters' });
    await call('branding.regenerateImages', { idempotencyId: 'again', max: 5 });

    const ledger = await s.ledgerText();
    for (const kind of ['branding.image.generate', 'branding.voice.rewrite', 'branding.template.render', 'branding.kit.export']) expect(ledger).toContain(kind);
    expect(ledger).not.toContain(CANARY);
    const design = JSON.stringify((await s.client.get('ops', { source: 'design', order: 'asc' })).body);
    expect(design).toContain('branding.image.upload');
    expect(design).not.toContain(CANARY);
    const audit = JSON.stringify(await s.runtime.db.query('SELECT record FROM ai_audit WHERE org_id = $1', [s.org.orgId]));
    expect(audit).toContain('generated');
    expect(audit).not.toContain(CANARY);
    expect(s.logs()).not.toContain(CANARY);
  });

  it('fuzzed at real rows: never a 5xx, every refusal a well-formed frame', async () => {
    const { templates } = await call('branding.listTemplates', {});
    const templateId = templates[0].id as string;
    const image = await call('branding.uploadImage', { contentBase64: (await png()).toString('base64'), idempotencyId: 'fuzz-img' });
    const values = anyValue(oddStrings(templateId, image.asset.id, 'rnd_0123456789abcdef', 'bkx_0123456789abcdef', 'png', 'pdf', 'css', 'pattern'));
    for (const [method, extra] of [
      ['branding.uploadImage', ['contentBase64', 'sha256', 'fileId', 'altText', 'tags']],
      ['branding.amendArtifact', ['altText', 'tags', 'crop', 'status', 'retainUntil', 'force']],
      ['branding.generateImage', ['seed', 'altText']],
      ['branding.regenerateImages', ['imageIds', 'max']],
      ['branding.rewriteInVoice', ['maxChars']],
      ['branding.renderTemplate', ['revision', 'scale', 'saveToFolderId']],
      ['branding.exportKit', ['formats', 'include']],
      ['branding.regenerateTemplate', ['force']],
      ['branding.regenerateTemplates', ['force']],
      ['branding.regenerate', []],
    ] as const) {
      const example = s.runtime.pipeline.handlers.get(method)!.contract.example;
      await fuzzAtRows(method, {
        client: s.client,
        example,
        ids: { templateId, artifactId: image.asset.id },
        fields: [...extra, 'unknown'],
        keys: [s.org.adminKey],
        values,
        numRuns: 10,
      });
    }
  }, 120_000);
});
