import { emailReads } from './reads.js';
import { emailWrites } from './writes.js';
import { emailSend } from './send.js';
import { emailRules } from './rules.js';
import { emailAi } from './ai.js';

/** The email family's contracts (docs/families/email.md): its reads and its writes. */
export const email = { ...emailReads, ...emailWrites, ...emailSend, ...emailRules, ...emailAi };

type Name = keyof typeof email;
const pick = <N extends Name>(names: readonly N[]) => Object.fromEntries(names.map((n) => [n, email[n]])) as Pick<typeof email, N>;

/**
 * Two areas (toolsets `email.mail`, `email.keeping`): working the mail (reading, drafting, sending, triaging, asking),
 * which every mailbox member does, and keeping the mailbox (reviewing agent mail, holds, rules, spam, folders,
 * signatures, moving threads), mostly a reviewer's or an owner's. One desk of all 41 would list ~11,000 tokens.
 */
export const EMAIL_AREAS = {
  mail: pick([
    'mailboxes',
    'inbox',
    'threads',
    'thread',
    'message',
    'messages',
    'drafts',
    'draftSave',
    'draftDiscard',
    'send',
    'draftSend',
    'redirect',
    'undoSend',
    'markRead',
    'markAllRead',
    'move',
    'react',
    'delegate',
    'logDecision',
    'summarise',
    'triage',
    'triageNow',
    'extractAction',
    'ask',
    'fileAttachment',
  ]),
  keeping: pick([
    'approvals',
    'approve',
    'amend',
    'approveAll',
    'return',
    'holdReplies',
    'rules',
    'ruleSave',
    'ruleSetEnabled',
    'reportSpam',
    'folderRename',
    'folderDelete',
    'signatures',
    'signatureSave',
    'signatureDelete',
    'moveMailbox',
  ]),
};

export { emailReads, emailWrites, emailSend, emailRules, emailAi };
export * from './shapes.js';
