import { crmAccounts } from './accounts.js';
import { crmDesk } from './desk.js';
import { crmTimeline } from './timeline.js';
import { crmDeals } from './deals.js';
import { crmTargets } from './targets.js';
import { crmPlaybooks } from './playbooks.js';
import { crmRooms } from './rooms.js';

/** The crm family's contracts (docs/families/crm.md): every area's. */
export const crm = { ...crmAccounts, ...crmDeals, ...crmTargets, ...crmTimeline, ...crmDesk, ...crmRooms, ...crmPlaybooks };

type Name = keyof typeof crm;
const pick = <N extends Name>(names: readonly N[]) => Object.fromEntries(names.map((n) => [n, crm[n]])) as Pick<typeof crm, N>;

/**
 * Six areas (toolsets `crm.accounts`, `crm.pipeline`, …), so a desk takes one kind of sales work: who we sell to, the
 * deals and their forecast (and crm.ask), the timeline, the deal desk (terms and signatures), buyer rooms, and
 * playbooks with next best action. One desk of all 44 would list ~13,000 tokens.
 */
export const CRM_AREAS = {
  accounts: crmAccounts,
  pipeline: { ...crmDeals, ...crmTargets, ...pick(['ask']) },
  timeline: pick(['logInteraction', 'logDealDecision', 'pinNote', 'redactInteraction', 'listInteractions', 'linkEmail', 'linkFiles']),
  desk: crmDesk,
  rooms: crmRooms,
  playbooks: crmPlaybooks,
};

export { crmAccounts, crmDeals, crmTargets, crmRooms };
export * from './shared.js';
export { Account, Contact } from './accounts.js';
export { Deal } from './deals.js';
export { Target, period } from './targets.js';
export { GuestToken, GUEST_CAPABILITIES, type GuestCapability } from './rooms.js';
export { crmTimeline, Interaction, LoggedInteraction, interactionId, CRM_ASK_NOTICE, MAX_PINS, REDACTED } from './timeline.js';
export { crmPlaybooks, Definition as PlaybookDefinition, FACTS, MAX_DEPTH, MAX_RULES, SUGGESTABLE, ACTIONS } from './playbooks.js';
export { crmDesk, CLAUSE_CODES, STEP_KINDS, BREACHES } from './desk.js';
