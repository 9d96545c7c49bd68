import { SCOPES } from '../../../protocol/scopes.js';
import { mutate, ok, otherOrg } from '../../helpers/calls.js';
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

export async function brandOrg(): Promise<BrandOrg> {
  const cast = await castServer();
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
