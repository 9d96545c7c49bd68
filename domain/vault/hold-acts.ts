import { paramFacts as facts, type HoldActDescriber } from '../core/hold-acts.js';

/*
 * How the vault's holds read in the approval inbox: a break-glass lease (a human approves each use of the secret)
 * and an agent connecting a remote MCP server. The facts are the held call's; never a value (no held call carries one).
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
