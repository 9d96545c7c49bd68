import { expect } from 'vitest';
import type { ErrorCode } from '../../../protocol/errors.js';
import { SCOPES } from '../../../protocol/scopes.js';
import { eventsAfter, head, mutate, ok, otherOrg, refused } from '../../helpers/calls.js';
import type { TestClient } from '../../helpers/harness.js';
import { castServer, person, type Cast, type Person } from '../../helpers/people.js';

/*
 * The branding tests' org: the usual cast, an agent granted admin (a deliberate grant: its saves hold for a human),
 * a designer (design.read and design.write only), and another org; and a foundation whose pairs pass WCAG AA.
 */

export interface BrandOrg extends Cast {
  adminAgent: Person;
  designer: Person;
  other: TestClient;
}

export async function brandOrg(opts: Parameters<typeof castServer>[0] = {}): Promise<BrandOrg> {
  const cast = await castServer(opts);
  return {
    ...cast,
    adminAgent: await person(cast.s, 'Agent Admin', { scopes: SCOPES.filter((s) => s !== 'approval.decide'), principalKind: 'agent' }),
    designer: await person(cast.s, 'Dee Designer', { scopes: ['design.read', 'design.write'], principalKind: 'human' }),
    other: await otherOrg(cast.s),
  };
}

export const TOKENS = {
  color: {
    $type: 'color',
    brand: { primary: { $value: '#0b5cad' }, accent: { $value: { colorSpace: 'srgb', components: [0.9, 0.4, 0.1], hex: '#e5661a' } } },
    text: { $value: '#1a1a1a' },
    surface: { $value: '#ffffff' },
    link: { $value: '{color.brand.primary}' },
  },
  space: { $type: 'dimension', md: { $value: { value: 16, unit: 'px' } } },
  font: { body: { $type: 'fontFamily', $value: ['Inter', 'sans-serif'] } },
};

export const FOUNDATION = {
  name: 'Acme Books',
  logos: { primary: 'img_0123456789abcdef' },
  tokens: TOKENS,
  usage: [
    { fg: '{color.text}', bg: '{color.surface}', use: 'text' },
    { fg: '{color.surface}', bg: '{color.brand.primary}', use: 'text' },
  ],
  voice: {
    tone: 'Plain and warm.',
    rules: [{ text: 'Say what happened, then what to do.', avoid: ['synergy'] }],
    examples: [{ text: 'Your invoice is paid.', channel: 'email' }],
  },
};

/** The live foundation version. */
export const versionOf = async (on: BrandOrg): Promise<number> => (await ok(on.s, 'branding.getFoundation', {})).version as number;

/** Save a patch as the owner on the live version: the result. */
export async function save(o: BrandOrg, patch: Record<string, unknown>) {
  return (await mutate(o.s, 'branding.saveFoundation', { baseVersion: await versionOf(o), patch }, 'branding.foundation.save')).result;
}

/** A social post: a frame with a stack of text slots, the logo, a shape; token refs into TOKENS. */
export const BODY = {
  type: 'frame',
  style: { width: 1080, height: 1080, backgroundColor: '{color.surface}', padding: '{space.md}', display: 'flex' },
  children: [
    {
      type: 'stack',
      style: { flexDirection: 'column', gap: 24 },
      children: [
        { type: 'text', text: '{{headline}}', style: { color: '{color.text}', fontSize: 72, fontFamily: '{font.body}', fontWeight: 700 } },
        { type: 'text', text: 'Out now: {{subline}}', style: { color: '{color.brand.primary}', fontSize: 32 } },
      ],
    },
    { type: 'image', src: 'img_0123456789abcdef', alt: 'Logo', style: { position: 'absolute', right: 48, bottom: 48, width: 160 } },
    { type: 'shape', shape: 'rect', style: { backgroundColor: '{color.brand.accent}', height: 12 } },
  ],
};

export const FIELDS = [
  { name: 'headline', type: 'text', maxLength: 80 },
  { name: 'subline', type: 'text' },
];

/** A package as exportTemplate writes one, with a token this foundation lacks ({color.promo}): it becomes a literal. */
export const PACKAGE = {
  format: 'wops.template/1',
  template: {
    kind: 'social-post',
    name: 'Launch post',
    size: { width: 1080, height: 1080 },
    body: { ...BODY, children: [...BODY.children, { type: 'shape', shape: 'ellipse', style: { backgroundColor: '{color.promo}', width: 40, height: 40 } }] },
    fields: FIELDS,
  },
  tokens: { 'color.promo': { $type: 'color', $value: { colorSpace: 'srgb', components: [1, 0, 0.5], hex: '#ff0080' } } },
};

/** The design log's head seq (GET /ops?source=design). */
export async function designSeq(o: BrandOrg): Promise<number> {
  const res = await o.s.client.get('ops', { source: 'design', limit: 1 });
  expect(res.status, res.raw).toBe(200);
  return res.body.head.seq as number;
}

/** An R write that must succeed with exactly one design record and no ledger event: its result. */
export async function libraryWrite(o: BrandOrg, method: string, params: Record<string, unknown>, key?: string) {
  const [seq, ledger] = [await designSeq(o), await head(o.s)];
  const result = await ok(o.s, method, params, key);
  expect(await designSeq(o), `${method} records one design record`).toBe(seq + 1);
  expect(await eventsAfter(o.s, ledger), `${method} appends no ledger event`).toEqual([]);
  return result;
}

/** A refused R write: the code and message, and no design record. */
export async function libraryRefused(o: BrandOrg, method: string, params: Record<string, unknown>, code: ErrorCode, message?: RegExp, key?: string) {
  const seq = await designSeq(o);
  const text = await refused(o.s, method, params, code, { message, key });
  expect(await designSeq(o), `${method} refused records nothing`).toBe(seq);
  return text;
}
