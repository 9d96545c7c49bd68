import type { MethodHandler, ReadHandler } from './handler.js';
import type { JobDefinition } from './jobs/define.js';
import { approvalHandlers, approvalReads } from './approval/index.js';
import { boardHandlers, boardReads } from './board/index.js';
import { booksHandlers, booksReads } from './books/index.js';
import { governanceHandlers } from './governance/index.js';
import { decisionHandlers, decisionReads } from './decision/index.js';
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
import { ledgerReads } from './ledger-reads.js';
import { aiReads } from './ai-reads.js';
import { orgHandlers, settingsHandlers } from './org/index.js';
import { orgReads } from './org/whoami.js';

/** Every deployed method, by full name. A registry method missing here answers NOT_FOUND. */
export const METHOD_HANDLERS: ReadonlyMap<string, MethodHandler> = new Map([...boardHandlers, ...booksHandlers, ...governanceHandlers, ...orgHandlers, ...settingsHandlers, ...approvalHandlers, ...pairingHandlers, ...memberHandlers, ...teamHandlers, ...personaHandlers, ...profileHandlers, ...notificationHandlers, ...hierarchyHandlers, ...userHandlers, ...adminHandlers, ...invitationHandlers, ...billingHandlers, ...decisionHandlers, ...directoryHandlers]);

/** Every deployed GET read, by path. */
export const READ_HANDLERS: ReadonlyMap<string, ReadHandler> = new Map([...boardReads, ...booksReads, ...ledgerReads, ...orgReads, ...approvalReads, ...aiReads, ...peopleReads, ...orgPeopleReads, ...billingReads, ...decisionReads]);

/** Every family's scheduled jobs (domain/jobs): the server's workers run these. */
export const JOB_DEFINITIONS: readonly JobDefinition<any>[] = [];
