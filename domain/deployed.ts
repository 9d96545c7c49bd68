import type { MethodHandler, ReadHandler } from './handler.js';
import type { JobDefinition } from './jobs/define.js';
import type { StartupStep } from './startup.js';
import { approvalHandlers, approvalReads } from './approval/index.js';
import { boardHandlers, boardReads } from './board/index.js';
import { booksHandlers } from './books/index.js';
import { governanceHandlers } from './governance/index.js';
import { decisionHandlers, decisionReads } from './decision/index.js';
import { charterHandlers } from './charter/index.js';
import { compactHandlers } from './compact/index.js';
import { policyHandlers, policyReads } from './policy/index.js';
import { escalationHandlers } from './escalation/index.js';
import { handoffHandlers } from './handoff/index.js';
import { pairingHandlers } from './pairing/index.js';
import { memberHandlers } from './member/index.js';
import { peopleReads } from './member/directory.js';
import { teamHandlers } from './team/index.js';
import { personaHandlers } from './persona/index.js';
import { invitationHandlers } from './invitation/index.js';
import { billingHandlers, billingReads } from './billing/index.js';
import { userHandlers } from './user/index.js';
import { adminHandlers } from './admin/index.js';
import { profileHandlers } from './profile/index.js';
import { notificationHandlers } from './notification/index.js';
import { orgPeopleReads } from './profile/org-reads.js';
import { hierarchyHandlers } from './hierarchy/index.js';
import { directoryHandlers } from './directory/index.js';
import { importBooksContacts } from './directory/books-import.js';
import { contactHandlers } from './contact/index.js';
import { contactsHandlers, contactsReads } from './contacts/index.js';
import { ledgerReads } from './ledger-reads.js';
import { aiReads } from './ai-reads.js';
import { orgHandlers, settingsHandlers } from './org/index.js';
import { orgReads } from './org/whoami.js';
import { inboxReads } from './inbox/index.js';
import { callingHandlers } from './calling/index.js';
import { channelHandlers } from './channel/index.js';
import { messagingHandlers } from './messaging/index.js';
import { messagingLifecycleJobs } from './messaging/lifecycle.js';
import { filesHandlers } from './files/index.js';
import { annotationHandlers } from './annotation/index.js';
import { fileHandlers } from './file/index.js';

/** Every deployed method, by full name. A registry method missing here answers NOT_FOUND. */
export const METHOD_HANDLERS: ReadonlyMap<string, MethodHandler> = new Map([...boardHandlers, ...booksHandlers, ...governanceHandlers, ...orgHandlers, ...settingsHandlers, ...approvalHandlers, ...pairingHandlers, ...memberHandlers, ...teamHandlers, ...personaHandlers, ...profileHandlers, ...notificationHandlers, ...hierarchyHandlers, ...userHandlers, ...adminHandlers, ...invitationHandlers, ...billingHandlers, ...decisionHandlers, ...charterHandlers, ...compactHandlers, ...policyHandlers, ...escalationHandlers, ...handoffHandlers, ...directoryHandlers, ...contactHandlers, ...contactsHandlers, ...channelHandlers, ...messagingHandlers, ...callingHandlers, ...filesHandlers, ...annotationHandlers, ...fileHandlers]);

/** Every deployed GET read, by path. */
export const READ_HANDLERS: ReadonlyMap<string, ReadHandler> = new Map([...boardReads, ...policyReads, ...ledgerReads, ...orgReads, ...approvalReads, ...aiReads, ...peopleReads, ...orgPeopleReads, ...billingReads, ...decisionReads, ...contactsReads, ...inboxReads]);

/** Every family's scheduled jobs (domain/jobs): the server's workers run these. */
export const JOB_DEFINITIONS: readonly JobDefinition<any>[] = [...messagingLifecycleJobs];

/** Work migrations leave for the application, run at every start (domain/startup.ts): each idempotent by its rows. */
export const STARTUP_STEPS: readonly StartupStep[] = [importBooksContacts];
