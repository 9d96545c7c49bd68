import { paramFacts, pick, type HoldActDescriber } from '../core/hold-acts.js';

/*
 * How branding's holds read in the approval inbox: an agent changing the brand identity. The summary recorded with
 * the hold says the version and the diff (token values before → after, other changes by path); the facts show both.
 */

const SUMMARY = /as version (?<version>\d+) \(on (?<base>\d+)\): (?<changes>.*)$/s;

const describe =
  (title: string, keys: [string, string][]): HoldActDescriber =>
  (summary, params) => ({
    title,
    facts: [
      ...pick(summary, SUMMARY, [
        ['version', 'New version'],
        ['base', 'On version'],
      ]),
      ...paramFacts(params, keys),
      ...pick(summary, SUMMARY, [['changes', 'Changes']]),
    ],
  });

export const brandingHoldActs: Readonly<Record<string, HoldActDescriber>> = {
  'branding.save_foundation': describe("Change the brand foundation (an agent's)", [['proposalId', 'Proposal']]),
  'branding.restore_foundation': describe("Restore a past brand foundation (an agent's)", [['version', 'Restores version']]),
  // settings.saveDesignTokens is deployed by branding (the foundation's tokens seen from settings): its holds read here.
  'settings.save_design_tokens': describe("Change the org's design tokens (an agent's)", []),
};
