import { describe, expect, it } from 'vitest';
import { DEPLOYED } from '../../../domain/deployed.js';
import { FamilySet } from '../../../domain/core/family.js';
import { describeApproval } from '../../../gateway/inbox/describe.js';

/*
 * Holds of methods a module deploys for another registry family (the vault's settings.deleteSecret, branding's
 * settings.saveDesignTokens) read in the approval inbox in that module's words, not the generic form.
 */

describe('hold wording of methods deployed under another registry family', () => {
  it('settings.deleteSecret reads as destroying a secret, with the secret and its name', () => {
    const plain = describeApproval(
      {
        actionClass: 'settings.delete_secret',
        subject: { summary: 'An agent destroys secret cred_1 (deploy.token) for good: 2 sealed version(s) shredded, its leases revoked' },
        heldAct: { method: 'settings.deleteSecret', params: { credentialId: 'cred_1', confirmName: 'deploy.token' } },
      },
      DEPLOYED.holdActs,
    );
    expect(plain).toEqual({
      title: "Destroy a secret for good (an agent's)",
      facts: [
        { label: 'Secret', value: 'cred_1' },
        { label: 'Name', value: 'deploy.token' },
      ],
    });
  });

  it('settings.saveDesignTokens reads as a change of the design tokens, with the versions and the changes', () => {
    const plain = describeApproval(
      {
        actionClass: 'settings.save_design_tokens',
        subject: { summary: "An agent saves the org's design tokens as version 4 (on 3): color.brand.primary #0b5cad → #0a4f96" },
        heldAct: { method: 'settings.saveDesignTokens', params: { ifVersion: 3, tokens: {} } },
      },
      DEPLOYED.holdActs,
    );
    expect(plain.title).toBe("Change the org's design tokens (an agent's)");
    expect(plain.facts).toEqual([
      { label: 'New version', value: '4' },
      { label: 'On version', value: '3' },
      { label: 'Changes', value: 'color.brand.primary #0b5cad → #0a4f96' },
    ]);
  });

  it('a module may not word a class that is neither its own nor one of its methods’', () => {
    const stray = { name: 'stray', holdActs: { 'settings.delete_secret': () => ({ title: 'x', facts: [] }) } };
    expect(() => new FamilySet([stray])).toThrow(/holdActs of stray: settings.delete_secret are neither stray's action classes nor its methods'/);
  });
});
