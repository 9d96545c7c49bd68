import { paramFacts as facts, type HoldActDescriber } from '../core/hold-acts.js';

/*
 * How the vault's holds read in the approval inbox: a break-glass lease (a human approves each use of the secret),
 * an agent destroying a secret (settings.deleteSecret) and an agent connecting a remote MCP server. The facts are
 * the held call's; never a value (no held call carries one).
 */

export const credentialHoldActs: Readonly<Record<string, HoldActDescriber>> = {
  'credential.lease': (_s, p) => ({
    title: 'Lease a break-glass secret (one use)',
    facts: facts(p, [
      ['credentialId', 'Secret'],
      ['name', 'Name'],
      ['purpose', 'Purpose'],
      ['ttlSeconds', 'For (seconds)'],
      ['taskId', 'Task'],
    ]),
  }),
  // A settings method the vault deploys: its holds read here, whatever their registry family.
  'settings.delete_secret': (_s, p) => ({
    title: "Destroy a secret for good (an agent's)",
    facts: facts(p, [
      ['credentialId', 'Secret'],
      ['confirmName', 'Name'],
    ]),
  }),
};

export const integrationHoldActs: Readonly<Record<string, HoldActDescriber>> = {
  'integration.connect': (_s, p) => ({
    title: "Connect or re-sync an external tool server (an agent's)",
    facts: facts(p, [
      ['name', 'Name'],
      ['url', 'Server'],
      ['integrationId', 'Re-sync of'],
      ['allowTools', 'Tools allowed'],
    ]),
  }),
};
