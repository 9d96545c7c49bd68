import { family, type Family } from '../core/family.js';
import { delegate, logDecision, markAllRead, markRead, react } from './acts.js';
import { draftDiscard, drafts, draftSave } from './drafts.js';
import { folderDelete, folderRename, move } from './folder-acts.js';
import { inbox, mailboxes, message, thread, threads } from './reads.js';
import { messages } from './search.js';
import { signatureDelete, signatures, signatureSave } from './signatures.js';
import { emailEvents } from './visibility.js';

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
});

/** The email family, as domain/deployed.ts lists it. */
export const emailFamily: Family = {
  name: 'email',
  methods: emailHandlers,
  eventVisibility: { email: emailEvents },
};

export { receiveMessage, ReceiveError, type ReceiveInput, type Received, type Verdict } from './receive.js';
export { createMailbox, mailboxesAt, operatorCreateMailbox, operatorSetMembers, OperatorError, parseSeat, setMailboxMembers, type Seat } from './mailboxes.js';
export { splitQuoted } from './quoted.js';
