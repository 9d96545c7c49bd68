import { family, type Family } from '../core/family.js';
import { lease, list, put, revoke } from './credential.js';
import { credentialHoldActs, integrationHoldActs } from './hold-acts.js';
import { DEFAULT_VAULT_CONFIG } from './keys.js';
import { deleteSecret, recordSecretRotation, upsertSecret } from './settings.js';
import { connect, disconnect } from './integration/connect.js';
import { invokeTool } from './integration/invoke.js';
import { integrationTools } from './integration/mcp-tools.js';
import { toolChain } from './integration/model.js';
import { closeClientPool } from './integration/pool.js';
import { list as listIntegrations, listAgentTools, toolsetVersion } from './integration/reads.js';

/*
 * The vault (docs/families/runtime.md, Secrets and integrations): one module deploying the credential family, the
 * settings family's secret methods (the rest of settings lives in people/org and runtime), and the integration
 * family, which authenticates with the vault's secrets. They share the credential tables, so they are one module.
 */

/** The credential family and the settings secret methods, as domain/deployed.ts lists them. */
export const credentialFamily: Family = {
  name: 'credential',
  methods: new Map([...family('credential', { put, lease, list, revoke }), ...family('settings', { upsertSecret, deleteSecret, recordSecretRotation })]),
  holdActs: credentialHoldActs,
  config: { vault: DEFAULT_VAULT_CONFIG },
};

/** The integration family: remote MCP servers called through the vault. */
export const integrationFamily: Family = {
  name: 'integration',
  methods: family('integration', { connect, disconnect, list: listIntegrations, listAgentTools, toolsetVersion, invokeTool }),
  holdActs: integrationHoldActs,
  // The kept MCP client sessions (integration/pool.ts) close at server stop.
  background: (deps) => ({ stop: () => closeClientPool(deps) }),
  contributes: {
    opsSources: { source: 'tools', chain: toolChain, verify: (q, orgId) => toolChain.verify(q, orgId), label: 'tool chain' },
    // The MCP face lists the caller's remote tools as ext_<integration>__<tool> (integration/mcp-tools.ts).
    mcpToolsets: integrationTools,
  },
};

export { loadVaultConfig, parseMasterKeys, newMasterKey, VAULT_ENV_HELP, type VaultConfig } from './keys.js';
export { rewrap, vaultKeyCounts } from './rewrap.js';
