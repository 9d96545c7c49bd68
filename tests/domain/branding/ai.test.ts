import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localProvider } from '../../../ai-gateway/local/index.js';
import { setAiSettings } from '../../../domain/ai-settings.js';
import { assetBytes } from '../../../domain/branding/index.js';
import { mutate, ok, refused } from '../../helpers/calls.js';
import { lastAudit } from '../../ai-gateway/kit.js';
import { reply, startMockModel, type MockModel } from '../../ai-gateway/mock-openai.js';
import { brandOrg, FOUNDATION, libraryWrite, save, type BrandOrg } from './kit.js';

/*
 * Scenario 6, AI offline and with a model (the loopback mock): the same seed makes the same image; photo with no
 * image model is BAD_REQUEST; a spent budget is RATE_LIMITED with no event; regenerateImages remakes generated
 * images as one version; a rewrite cites vr_… and keeps "$1,200"; a model draft altering it is refused (audited)
 * and the rule-based rewrite answers.
 */

const VOICE = {
  ...FOUNDATION,
  voice: {
    tone: 'Plain and warm.',
    rules: [
      { text: 'Say use, not leverage.', avoid: ['leverage', 'utilize'], prefer: 'use' },
      { text: 'No buzzwords.', avoid: ['synergy'] },
    ],
    examples: [],
  },
};
const TEXT = 'We leverage synergy to ship your $1,200 order to @sam by 2026-12-01: see https://acme.example/o/inv_0042abcd. Leverage it!';

let o: BrandOrg;
let mock: MockModel;
let m: BrandOrg;
beforeAll(async () => {
  o = await brandOrg();
  await save(o, VOICE);
  mock = await startMockModel();
  m = await brandOrg({
    aiProvider: localProvider(),
    ai: {
      provider: 'openai',
      openai: { baseURL: mock.url, apiKey: 'k', model: 'gpt-4o-mini', stream: false, maxRetries: 0, requestTimeoutMs: 5000 },
      images: { baseURL: mock.url, apiKey: 'k', model: 'gpt-image-1', timeoutMs: 5000, pricePerImageMicroUsd: 40_000 },
    },
  });
  await save(m, VOICE);
});
afterAll(async () => {
  await o.s.close();
  await m.s.close();
  await mock.close();
});

const gen = (on: BrandOrg, params: Record<string, unknown>, idem: string) =>
  mutate(on.s, 'branding.generateImage', params, 'branding.image.generate', { idem });

describe('generateImage offline', () => {
  it('a seeded pattern in the brand colours: the same seed the same bytes and image (changed:false); another seed other bytes; audited', async () => {
    const params = { prompt: 'Launch week', style: 'pattern', size: { width: 256, height: 128 }, seed: 42 };
    const first = await gen(o, params, 'g1');
    expect(first.result).toMatchObject({
      status: 'generated',
      provider: 'local',
      changed: true,
      image: { origin: 'generated', width: 256, height: 128, altText: 'Launch week' },
    });
    expect(first.result.image.generated).toEqual({ style: 'pattern', size: { width: 256, height: 128 }, seed: 42 });
    expect(first.event.payload).toMatchObject({
      imageId: first.result.image.id,
      status: 'generated',
      provider: 'local',
      sha256: first.result.image.sha256,
      auditSeq: first.result.auditSeq,
    });
    expect(JSON.stringify(first.event.payload)).not.toContain('Launch');
    const audit = await lastAudit(o.s.client);
    expect(audit).toMatchObject({
      seq: first.result.auditSeq,
      record: { method: 'branding.generateImage', verdict: 'generated', provider: 'local', costMicroUsd: 0 },
    });
    const again = await gen(o, params, 'g2');
    expect(again.result).toMatchObject({ status: 'existing', changed: false, image: { id: first.result.image.id, sha256: first.result.image.sha256 } });
    expect(again.event.payload.noop).toBe(true);
    const other = await gen(o, { ...params, seed: 43 }, 'g3');
    expect(other.result.image.sha256).not.toBe(first.result.image.sha256);
    const bytes = await assetBytes(o.s.runtime.db, o.s.runtime.deps.blobs, o.s.org.orgId, first.result.image.id);
    const { dominant } = await sharp(bytes.bytes).stats();
    expect(dominant).toBeDefined();
    // typographic and illustration too; the same seed, the same bytes across styles' reruns
    const card = await gen(o, { prompt: 'Spring sale', style: 'typographic', size: { width: 300, height: 200 }, seed: 7 }, 'g4');
    expect(card.result.image).toMatchObject({ width: 300, height: 200, contentType: 'image/png' });
    await gen(o, { prompt: 'Hills', style: 'illustration', size: { width: 200, height: 200 } }, 'g5');
  });

  it('photo without an image model: BAD_REQUEST style; a spent budget: RATE_LIMITED, no event; bad params named', async () => {
    await refused(o.s, 'branding.generateImage', { prompt: 'A team photo', style: 'photo', size: { width: 512, height: 512 } }, 'BAD_REQUEST', {
      message: /^style: photo needs an image model \(AI_IMAGE_MODEL\)/,
    });
    await setAiSettings(o.s.runtime.db, o.s.org.slug, { monthlyBudgetMicroUsd: 0 });
    try {
      await refused(o.s, 'branding.generateImage', { prompt: 'Budget', style: 'pattern', size: { width: 64, height: 64 } }, 'RATE_LIMITED', {
        message: /^branding\.generateImage is off for this org/,
      });
      await refused(o.s, 'branding.rewriteInVoice', { text: 'Hello', channel: 'email' }, 'RATE_LIMITED', { message: /^branding\.rewriteInVoice is off/ });
    } finally {
      await setAiSettings(o.s.runtime.db, o.s.org.slug, { monthlyBudgetMicroUsd: null });
    }
    await refused(o.s, 'branding.generateImage', { prompt: 'x', style: 'pattern', size: { width: 4096, height: 64 } }, 'BAD_REQUEST', {
      message: /^size\.width: must be at most 2048$/,
    });
    await refused(o.s, 'branding.generateImage', { prompt: 'x'.repeat(1001), style: 'pattern', size: { width: 64, height: 64 } }, 'BAD_REQUEST', {
      message: /^prompt: /,
    });
    await refused(o.s, 'branding.generateImage', { prompt: 'x', style: 'pattern', size: { width: 64, height: 64 } }, 'FORBIDDEN_SCOPE', {
      message: /^missing scope design\.write/,
      key: o.viewer.key,
    });
  });

  it('regenerateImages: remade from prompt and seed as one version; after a palette change, new bytes; an uploaded image is refused', async () => {
    const made = (await gen(o, { prompt: 'Regen', style: 'pattern', size: { width: 96, height: 96 }, seed: 5 }, 'r0')).result.image;
    const same = await libraryWrite(o, 'branding.regenerateImages', { imageIds: [made.id], idempotencyId: 'rg-1' });
    expect(same).toMatchObject({ changed: false, images: [{ id: made.id, revision: 1 }] });
    await save(o, { tokens: { color: { brand: { primary: { $value: '#7a1f5c' } } } } });
    const remade = await libraryWrite(o, 'branding.regenerateImages', { imageIds: [made.id], idempotencyId: 'rg-2' });
    expect(remade).toMatchObject({ changed: true, images: [{ id: made.id, revision: 2 }] });
    expect(remade.images[0].sha256).not.toBe(made.sha256);
    expect(remade.auditSeqs).toHaveLength(1);
    const undone = await libraryWrite(o, 'branding.undo', { version: remade.version, idempotencyId: 'rg-undo' });
    expect(undone.items).toEqual([{ itemId: made.id, revision: 3, status: 'active' }]);
    const up = (
      await ok(o.s, 'branding.uploadImage', {
        contentBase64: (
          await sharp({ create: { width: 8, height: 8, channels: 3, background: '#fff' } })
            .png()
            .toBuffer()
        ).toString('base64'),
        idempotencyId: 'rg-up',
      })
    ).asset;
    await refused(o.s, 'branding.regenerateImages', { imageIds: [up.id], idempotencyId: 'rg-3' }, 'BAD_REQUEST', {
      message: /^imageIds\.0: .* was uploaded, not generated/,
    });
    await refused(o.s, 'branding.regenerateImages', { max: 21, idempotencyId: 'rg-4' }, 'BAD_REQUEST', { message: /^max: must be at most 20$/ });
  });
});

describe('rewriteInVoice', () => {
  it('offline: each avoided term to its wording, citing vr_…; figures, dates, URLs, mentions and ids kept; one event with counts', async () => {
    const { result, event } = await mutate(o.s, 'branding.rewriteInVoice', { text: TEXT, channel: 'email' }, 'branding.voice.rewrite');
    expect(result.text).toBe('We use to ship your $1,200 order to @sam by 2026-12-01: see https://acme.example/o/inv_0042abcd. Use it!');
    expect(result.source).toBe('rules');
    expect(result.changes.map((c: any) => [c.before, c.after])).toEqual([
      ['leverage', 'use'],
      ['synergy', ''],
      ['Leverage', 'Use'],
    ]);
    expect(result.changes.every((c: any) => /^vr_[0-9a-f]{16}$/.test(c.ruleId))).toBe(true);
    expect(event.payload).toMatchObject({ auditSeq: result.auditSeq, status: 'rules', charsIn: TEXT.length, charsOut: result.text.length });
    expect(JSON.stringify(event.payload)).not.toContain('1,200');
    const short = await ok(o.s, 'branding.rewriteInVoice', { text: 'One sentence here. Another sentence that runs on and on.', channel: 'web', maxChars: 30 });
    expect(short.text).toBe('One sentence here.');
    await refused(o.s, 'branding.rewriteInVoice', { text: 'x'.repeat(8001), channel: 'email' }, 'BAD_REQUEST', { message: /^text: / });
    await refused(o.s, 'branding.rewriteInVoice', { text: 'x', channel: 'Email!' }, 'BAD_REQUEST', { message: /^channel: / });
  });

  it('with a model: a clean draft answers; a draft altering "$1,200" or keeping "synergy" is refused (audited ungrounded) and the rules answer', async () => {
    mock.script([reply({ content: 'We use teamwork to ship your $1,200 order to @sam by 2026-12-01: see https://acme.example/o/inv_0042abcd. Use it!' })]);
    const good = await ok(m.s, 'branding.rewriteInVoice', { text: TEXT, channel: 'email' });
    expect(good).toMatchObject({ source: 'model', refusal: null });
    expect(mock.requests[0].body.messages[0].content).toMatch(/\[vr_[0-9a-f]{16}\] Say use, not leverage\./);
    expect((await lastAudit(m.s.client)).record).toMatchObject({ verdict: 'grounded', provider: 'openai' });

    mock.script([reply({ content: 'We use teamwork to ship your $1,300 order to @sam by 2026-12-01: see https://acme.example/o/inv_0042abcd.' })]);
    const { result, event } = await mutate(m.s, 'branding.rewriteInVoice', { text: TEXT, channel: 'email' }, 'branding.voice.rewrite');
    expect(result).toMatchObject({ source: 'rules', refusal: expect.stringMatching(/alters or drops "\$1,200"/) });
    expect(result.text).toContain('$1,200');
    expect(event.payload.status).toBe('fallback');
    expect((await lastAudit(m.s.client)).record).toMatchObject({ verdict: 'ungrounded', reason: expect.stringMatching(/\$1,200/) });

    mock.script([
      reply({ content: 'We leverage synergy to ship your $1,200 order to @sam by 2026-12-01: see https://acme.example/o/inv_0042abcd. Leverage it!' }),
    ]);
    expect((await ok(m.s, 'branding.rewriteInVoice', { text: TEXT, channel: 'email' })).refusal).toMatch(/keeps "leverage"/);
  });

  it('generateImage with an image model: its image, metadata dropped, at the size asked, priced; a failing endpoint is refused with no event', async () => {
    const modelPng = await sharp({ create: { width: 512, height: 512, channels: 3, background: '#336699' } })
      .png()
      .withExif({ IFD0: { Artist: 'model' } })
      .toBuffer();
    mock.images = () => ({ status: 200, body: { data: [{ b64_json: modelPng.toString('base64') }] } });
    const { result } = await gen(m, { prompt: 'A team photo', style: 'photo', size: { width: 256, height: 128 }, seed: 1 }, 'm1');
    expect(result).toMatchObject({ status: 'generated', provider: 'openai', image: { width: 256, height: 128 } });
    expect(mock.requests.at(-1)!.body).toMatchObject({ model: 'gpt-image-1', n: 1, response_format: 'b64_json' });
    expect((await lastAudit(m.s.client)).record).toMatchObject({ verdict: 'generated', costMicroUsd: 40_000, provider: 'openai' });
    mock.images = () => ({ status: 500, body: { error: { message: 'down' } } });
    await refused(m.s, 'branding.generateImage', { prompt: 'Another photo', style: 'photo', size: { width: 64, height: 64 } }, 'RATE_LIMITED', {
      message: /^the image model failed \(the image endpoint answered HTTP 500/,
      idem: 'm2',
    });
    expect((await lastAudit(m.s.client)).record).toMatchObject({ verdict: 'provider_error' });
  });
});
