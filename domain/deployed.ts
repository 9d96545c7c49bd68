import { FamilySet, type Family } from './core/family.js';
import { openRuntime, type Runtime, type RuntimeOptions } from './core/runtime.js';
import { approvalFamily } from './approval/index.js';
import { boardFamily } from './board/index.js';
import { booksFamily } from './books/index.js';
import { annotationFamily, fileFamily, filesFamily } from './files/index.js';
import { charterFamily, compactFamily, decisionFamily, escalationFamily, governanceFamily, handoffFamily, policyFamily } from './governance/index.js';
import { callingFamily, channelFamily, messagingFamily } from './messaging/index.js';
import { contactFamily } from './contact/index.js';
import { contactsFamily } from './contacts/index.js';
import { directoryFamily } from './directory/index.js';
import { emailFamily } from './email/index.js';
import { inboxFamily } from './inbox/index.js';
import { calendarFamily } from './calendar/index.js';
import { knowledgeFamily } from './knowledge/index.js';
import { meetingsFamily } from './meetings/index.js';
import { crmFamily } from './crm/index.js';
import { brandingFamily } from './branding/index.js';
import { artifactFamily } from './artifact/index.js';
import { memoryFamily } from './memory/index.js';
import { sopFamily } from './sop/index.js';
import { companySettingsFamily, costFamily, leaseFamily, presenceFamily, registryFamily } from './runtime/index.js';
import { credentialFamily, integrationFamily } from './vault/index.js';
import { notificationFamily } from './notification/index.js';
import {
  adminFamily,
  billingFamily,
  hierarchyFamily,
  invitationFamily,
  memberFamily,
  orgFamily,
  pairingFamily,
  personaFamily,
  profileFamily,
  teamFamily,
  userFamily,
} from './people/index.js';
import { aiReadsFamily } from './ai-reads.js';
import { ledgerReadsFamily } from './ledger-reads.js';

/**
 * Every deployed family, one descriptor each (core/family.ts): the runtime builds its handlers, reads, jobs,
 * answerers, event visibility, signed blob records, startup steps and extension points from this list. A registry
 * method whose family is not here answers NOT_FOUND (tests/protocol/deployed.test.ts keeps the undeployed list).
 */
export const DEPLOYED_FAMILIES: readonly Family[] = [
  boardFamily,
  booksFamily,
  governanceFamily,
  orgFamily,
  approvalFamily,
  pairingFamily,
  memberFamily,
  teamFamily,
  personaFamily,
  profileFamily,
  notificationFamily,
  hierarchyFamily,
  userFamily,
  adminFamily,
  invitationFamily,
  billingFamily,
  decisionFamily,
  charterFamily,
  compactFamily,
  policyFamily,
  escalationFamily,
  handoffFamily,
  directoryFamily,
  contactFamily,
  contactsFamily,
  channelFamily,
  messagingFamily,
  callingFamily,
  filesFamily,
  annotationFamily,
  fileFamily,
  emailFamily,
  calendarFamily,
  meetingsFamily,
  knowledgeFamily,
  memoryFamily,
  sopFamily,
  crmFamily,
  brandingFamily,
  artifactFamily,
  registryFamily,
  presenceFamily,
  leaseFamily,
  costFamily,
  companySettingsFamily,
  credentialFamily,
  integrationFamily,
  inboxFamily,
  ledgerReadsFamily,
  aiReadsFamily,
];

/** The deployed families' registries. A runtime builds its own from the list (with a test's extras, if any). */
export const DEPLOYED = new FamilySet(DEPLOYED_FAMILIES);

/** Every deployed method, by full name. */
export const METHOD_HANDLERS = DEPLOYED.methods;

/** Every deployed GET read, by path. */
export const READ_HANDLERS = DEPLOYED.reads;

export type { Runtime, RuntimeOptions } from './core/runtime.js';

/** A runtime over the deployed families: what the server, the CLI and the tests open. */
export function createRuntime(opts: RuntimeOptions = {}): Promise<Runtime> {
  return openRuntime(DEPLOYED, opts);
}
