import { family, type Family } from '../core/family.js';
import { delegate, logDecision, markAllRead, markRead, react } from './acts.js';
import { draftDiscard, drafts, draftSave } from './drafts.js';
import { folderDelete, folderRename, move } from './folder-acts.js';
import { inbox, mailboxes, message, thread, threads } from './reads.js';
import { messages } from './search.js';
import { signatureDelete, signatures, signatureSave } from './signatures.js';
import { emailEvents } from './visibility.js';
import { DEFAULT_INBOUND } from './inbound/config.js';
import { startInbound } from './inbound/listener.js';
import { rules, ruleSave, ruleSetEnabled } from './rules/handlers.js';
import { reportSpam } from './spam.js';
import { EMAIL_ANSWERERS } from './ai/answerers.js';
import { ask } from './ai/ask.js';
import { extractAction } from './ai/extract.js';
import { summarise } from './ai/summarise.js';
import { triage, triageNow } from './ai/triage.js';
import { TRIAGE_DEFAULTS, triagePass } from './ai/background.js';
import { fileAttachment } from './attachments.js';
import { moveMailbox } from './move-mailbox.js';
import { approvalSubjects, emailHoldActs, SENDING_DEFAULTS, sendingHandlers, sendingJobs } from './send/index.js';

/*
 * The email family (docs/families/email.md): shared mailboxes where agents draft and humans decide what leaves.
 * Slice 1: the data model, mailboxes (made by the operator's CLI), receiving, threads, reads, drafts and each
 * member's acts. Sending, review, rules, AI and IMAP come in later slices, each adding its handlers here.
 */

export const emailHandlers = family('email', {
  mailboxes,
  threads,
  thread,
  message,
  messages,
  inbox,
  drafts,
  signatures,
  draftSave,
  draftDiscard,
  markRead,
  markAllRead,
  move,
  folderRename,
  folderDelete,
  react,
  signatureSave,
  signatureDelete,
  delegate,
  logDecision,
  reportSpam,
  ruleSave,
  ruleSetEnabled,
  rules,
  summarise,
  triage,
  triageNow,
  extractAction,
  ask,
  fileAttachment,
  moveMailbox,
  ...sendingHandlers,
});

/** The email family, as domain/deployed.ts lists it. */
export const emailFamily: Family = {
  name: 'email',
  methods: emailHandlers,
  eventVisibility: { email: emailEvents },
  answerers: EMAIL_ANSWERERS,
  config: { emailInbound: DEFAULT_INBOUND, emailSending: SENDING_DEFAULTS, emailTriage: TRIAGE_DEFAULTS },
  // Sending: delivery after the undo window, reviews that expire; held mail in the approval inbox, decided there too.
  // The background triage pass after mail arrives, where a mailbox has it on.
  jobs: [...sendingJobs, triagePass],
  holdActs: emailHoldActs,
  contributes: { approvalSubjects },
  // The SMTP listener, where EMAIL_SMTP_LISTEN is set (in the processes that run workers: the server's).
  background: (deps) => (deps.config.emailInbound.listen ? startInbound(deps, deps.config.emailInbound) : { stop: async () => {} }),
};

export { receiveMessage, ReceiveError, type ReceiveInput, type Received, type Verdict } from './receive.js';
export {
  createMailbox,
  mailboxesAt,
  operatorCreateMailbox,
  operatorSetMembers,
  operatorSetTriage,
  OperatorError,
  parseSeat,
  setMailboxMembers,
  setMailboxTriage,
  type Seat,
} from './mailboxes.js';
export { splitQuoted } from './quoted.js';
export { EMAIL_INBOUND_ENV_HELP, loadEmailInboundConfig, type DnsResolver, type EmailInboundConfig } from './inbound/config.js';
export { startInbound, type InboundListener } from './inbound/listener.js';
export { checkAuth, type AuthVerdicts } from './inbound/auth.js';
export { parseImapUrl, syncImap, type ImapSource, type SyncResult } from './inbound/imap.js';
export { sendCalendarMail, type CalendarMail, type CalendarSent } from './send/calendar.js';
export { type CalendarPart, type MailArrival, type MailArrivalHook } from './inbound/calendar-parts.js';
export { linkableThread, type LinkableThread } from './linkable.js';
