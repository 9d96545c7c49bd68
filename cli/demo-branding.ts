import type { DemoDesk } from './demo.js';

/*
 * Harbour Lane's brand (docs/families/branding.md): its logo, the foundation a human saved (name, colours whose usage
 * pairs pass WCAG AA, type, a voice with rules and examples), a cloned template and the six starters, a render, a
 * pattern the agent generated, and the bookkeeping agent's proposal to warm the accent colour, open and waiting for a
 * human to apply or decline it.
 */

const TOKENS = {
  color: {
    $type: 'color',
    brand: { primary: { $value: '#0f4c5c' }, accent: { $value: '#b4490f' } },
    text: { $value: '#1f2933' },
    muted: { $value: '#52606d' },
    surface: { $value: '#ffffff' },
    sand: { $value: '#f5efe6' },
    link: { $value: '{color.brand.primary}' },
  },
  font: {
    $type: 'fontFamily',
    heading: { $value: ['Fraunces', 'Georgia', 'serif'] },
    body: { $value: ['Inter', 'Helvetica', 'sans-serif'] },
  },
  weight: { $type: 'fontWeight', regular: { $value: 400 }, bold: { $value: 700 } },
  space: { $type: 'dimension', sm: { $value: { value: 8, unit: 'px' } }, md: { $value: { value: 16, unit: 'px' } }, lg: { $value: { value: 48, unit: 'px' } } },
  size: { $type: 'dimension', body: { $value: { value: 1, unit: 'rem' } }, display: { $value: { value: 3, unit: 'rem' } } },
};

const FOUNDATION = {
  name: 'Harbour Lane',
  tokens: TOKENS,
  usage: [
    { fg: '{color.text}', bg: '{color.surface}', use: 'text' },
    { fg: '{color.muted}', bg: '{color.surface}', use: 'text' },
    { fg: '{color.surface}', bg: '{color.brand.primary}', use: 'text' },
    { fg: '{color.text}', bg: '{color.sand}', use: 'text' },
    { fg: '{color.brand.accent}', bg: '{color.surface}', use: 'largeText' },
    { fg: '{color.link}', bg: '{color.surface}', use: 'ui' },
  ],
  voice: {
    tone: 'Plain, warm and exact: a studio that knows its craft and says what it means.',
    rules: [
      { text: 'Lead with what the client gets, then how.', avoid: ['synergy', 'leverage'] },
      { text: 'Use numbers and dates as they are; never round a price.', avoid: [] },
      { text: 'Say we, not Harbour Lane, after the first mention.', avoid: [] },
    ],
    examples: [
      { text: 'Your new site goes live on Monday. We will walk you through the editor on Tuesday at 10.', channel: 'email' },
      { text: 'Fresh work for Coastal Realty: a site that sells the view.', channel: 'social' },
    ],
  },
};

const POST = {
  format: 'wops.template/1',
  template: {
    kind: 'social-post',
    name: 'Case study post',
    size: { width: 1080, height: 1080 },
    fields: [
      { name: 'headline', type: 'text', maxLength: 60 },
      { name: 'client', type: 'text', maxLength: 40 },
    ],
    body: {
      type: 'frame',
      style: { display: 'flex', backgroundColor: '{color.sand}', padding: '{space.lg}', width: 1080, height: 1080 },
      children: [
        {
          type: 'stack',
          style: { flexDirection: 'column', gap: '{space.md}' },
          children: [
            { type: 'text', text: '{{headline}}', style: { color: '{color.text}', fontFamily: '{font.heading}', fontWeight: '{weight.bold}', fontSize: 72 } },
            { type: 'text', text: 'For {{client}}', style: { color: '{color.brand.accent}', fontFamily: '{font.body}', fontSize: 36 } },
          ],
        },
        {
          type: 'shape',
          shape: 'rect',
          style: { position: 'absolute', left: 0, bottom: 0, width: 1080, height: 24, backgroundColor: '{color.brand.primary}' },
        },
      ],
    },
  },
  tokens: {},
};

/** The studio's mark: a harbour wave on the primary colour, shapes only (no text, so it renders alike everywhere). */
const MARK = `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="240" viewBox="0 0 240 240">
  <rect width="240" height="240" rx="48" fill="#0f4c5c"/>
  <path d="M30 150 C70 110 100 190 140 150 S200 110 210 150 L210 200 L30 200 Z" fill="#f5efe6"/>
  <circle cx="168" cy="78" r="26" fill="#b4490f"/>
</svg>`;

export async function demoBranding(desk: DemoDesk, progress: (line: string) => void): Promise<string[]> {
  desk.live();
  progress('Branding: the logo, the foundation (colours passing WCAG AA, type, voice), templates, a render, and the agent’s proposal waiting for a human');
  const logo = await desk.call('branding.uploadImage', {
    idempotencyId: 'demo-logo',
    contentBase64: Buffer.from(MARK).toString('base64'),
    altText: 'Harbour Lane: a wave under an evening sun',
    tags: ['logo'],
  });
  const saved = await desk.call('branding.saveFoundation', {
    baseVersion: 0,
    patch: { ...FOUNDATION, logos: { primary: logo.asset.id, mark: logo.asset.id } },
  });
  const { template } = await desk.call('branding.cloneTemplate', { package: POST, idempotencyId: 'demo-case-study-post' });
  const { proposal } = await desk.call(
    'branding.proposeChange',
    {
      baseVersion: saved.version,
      patch: { tokens: { color: { brand: { accent: { $value: '#a63f0a' } } } } },
      rationale: 'The accent reads a little thin on the sand background in social posts; one step darker keeps it warm and clears AA with room.',
    },
    desk.keys.agent,
  );
  const starters = await desk.call('branding.regenerateTemplates', { idempotencyId: 'demo-starters' });
  const square = (starters.templates as { recipe: string; templateId: string }[]).find((t) => t.recipe === 'social-square')!;
  const render = await desk.call('branding.renderTemplate', {
    templateId: square.templateId,
    values: { headline: 'Harbour Lane opens on the quay', subline: 'Doors at nine' },
    format: 'png',
  });
  const pattern = await desk.call(
    'branding.generateImage',
    { prompt: 'Calm harbour water at dusk, for social backgrounds', style: 'pattern', size: { width: 1080, height: 1080 }, seed: 7 },
    desk.keys.agent,
  );
  const passing = (saved.contrasts as { passes: boolean }[]).filter((c) => c.passes).length;
  return [
    `Branding: the Harbour Lane foundation, version ${saved.version}: ${passing} of ${saved.contrasts.length} usage pairs pass WCAG AA; a voice with 3 rules. Try branding.getVoice {"format":"prompt"}`,
    `  Template ${template.id} (a case study post) in the library: try branding.exportTemplate, then branding.amendTemplate and branding.undo`,
    `  The agent's proposal ${proposal.id} (a darker accent) waits for a human: branding.saveFoundation {"baseVersion":${saved.version},"proposalId":"${proposal.id}"} applies it`,
    `  Logo ${logo.asset.id} (primary and mark); the agent generated ${pattern.image.id} offline, a seeded pattern in the brand's colours: try branding.generateImage with the same seed`,
    `  Six starter templates from the foundation (branding.regenerateTemplates); ${render.renderId} renders the square one (${render.width}×${render.height} PNG): try branding.renderTemplate or branding.exportKit`,
  ];
}
