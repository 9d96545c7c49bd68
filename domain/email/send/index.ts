import { SENDING_DEFAULTS } from './config.js';
import { deliver } from './deliver.js';
import { expireReview } from './expire.js';
import { draftSend, redirect, send } from './handlers.js';
import { emailHoldActs } from './hold-acts.js';
import { amend, approvalSubjects, approvals, approve, approveAll, returnReview } from './review.js';
import { holdReplies, undoSend } from './undo.js';

/*
 * Sending and review (docs/families/email.md, Sending and review; decision 0061): the methods, the delivery and
 * expiry jobs, how held mail reads in the approval inbox, and the decider approval.resolve hands email reviews to.
 */

export const sendingHandlers = { send, draftSend, redirect, undoSend, holdReplies, approvals, approve, amend, approveAll, return: returnReview };
export const sendingJobs = [deliver, expireReview];
export { approvalSubjects, emailHoldActs, SENDING_DEFAULTS };
