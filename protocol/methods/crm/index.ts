import { crmAccounts } from './accounts.js';
import { crmDeals } from './deals.js';
import { crmTargets } from './targets.js';

/**
 * The crm family's contracts (docs/families/crm.md): accounts and contacts, deals, targets. One toolset (`crm`) while
 * these 19 are all that is built; the family splits into areas (accounts, pipeline, timeline, desk, rooms, playbooks)
 * when the rest have contracts, as email and files did.
 */
export const crm = { ...crmAccounts, ...crmDeals, ...crmTargets };

export { crmAccounts, crmDeals, crmTargets };
export * from './shared.js';
export { Account, Contact } from './accounts.js';
export { Deal } from './deals.js';
export { Target, period } from './targets.js';
