import { family, reads, type Family } from '../core/family.js';
import { RUNTIME_CONFIG_DEFAULTS } from './config.js';
import { deleteOfficeLocation, saveCompanyProfile, upsertOfficeLocation } from './company/handlers.js';
import { report } from './cost/report.js';
import { reportedSpend } from './cost/spend.js';
import { claim, heartbeat as leaseHeartbeat, release } from './lease/handlers.js';
import { beat } from './presence/handlers.js';
import { agents, company, leases } from './reads.js';
import { heartbeat, register } from './registry/handlers.js';

/*
 * The agent runtime's control plane (docs/families/runtime.md): registry, presence, lease and cost, and the settings
 * family's company profile and offices. One group module because they share rows: a stopped registration frees
 * its leases, an agent's presence falls back to its registrations' health, /org/agents reads both. Each registry
 * family keeps its own descriptor; the company methods join the settings family, whose key methods live with the
 * org (domain/people/org), through a descriptor of their own.
 */

export const registryFamily: Family = {
  name: 'registry',
  methods: family('registry', { register, heartbeat }),
  reads: reads({ 'org/agents': agents }),
  config: RUNTIME_CONFIG_DEFAULTS,
};

export const presenceFamily: Family = { name: 'presence', methods: family('presence', { beat }) };

export const leaseFamily: Family = {
  name: 'lease',
  methods: family('lease', { claim, heartbeat: leaseHeartbeat, release }),
  reads: reads({ 'org/leases': leases }),
};

/** Agents' reported model spend: the AI gateway counts it in the one monthly budget and GET /cost.rollup. */
export const costFamily: Family = { name: 'cost', methods: family('cost', { report }), spend: reportedSpend };

/** The settings family's company part (settings.saveCompanyProfile, upsertOfficeLocation, deleteOfficeLocation). */
export const companySettingsFamily: Family = {
  name: 'company',
  methods: family('settings', { saveCompanyProfile, upsertOfficeLocation, deleteOfficeLocation }),
  reads: reads({ 'org/company': company }),
};

export { RUNTIME_ENV_HELP, loadRuntimeConfig } from './config.js';
