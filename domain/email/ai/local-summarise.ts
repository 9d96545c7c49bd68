import type { AskInput, Draft, Toolbox } from '../../../ai-gateway/types.js';
import { cannot, MailDraft, said, whoOf, type MailMessage } from './compose.js';
import { scopeOf } from './reads.js';
import { addressesAnAssistant, contentOf, isQuestion, isRequest } from './sentences.js';

/*
 * email.summarise offline (the `local` provider runs it; no model). It reads the thread as the caller and, newest
 * message first, quotes each message's key sentences: the first thing it says and what it asks (at most two a
 * message, the newest twelve points in all). Open questions are the questions of the newest message and of those
 * just before it from the same side (mail received, or mail the mailbox sent), which nobody has answered since:
 * newest first, so the latest ask is never lost (gaia#2641). Words addressed to an assistant are reported as content.
 */

const MAX_POINTS = 12;
const MAX_QUESTIONS = 8;
const PER_MESSAGE = 2;

export const summariseQuestion = (threadId: string) =>
  `Summarise thread ${threadId}: what its messages say, newest first, and the questions still open, each quoting the message it rests on.`;

/** The thread's mail received and sent, oldest first. */
export async function threadMail(tools: Toolbox, threadId: string): Promise<MailMessage[]> {
  const res = (await tools.call('email.thread', { threadId })) as { messages: MailMessage[] };
  return res.messages.filter(said);
}

/** The messages since the other side last wrote: the newest and those before it from the same side, newest first. */
export function openRun(mail: readonly MailMessage[]): MailMessage[] {
  const newest = mail[mail.length - 1];
  if (!newest) return [];
  const out: MailMessage[] = [];
  for (let i = mail.length - 1; i >= 0 && mail[i].state === newest.state; i--) out.push(mail[i]);
  return out;
}

export async function summariseThread(input: Pick<AskInput, 'question'>, tools: Toolbox): Promise<Draft> {
  const threadId = scopeOf(input.question).scope.threadId;
  if (!threadId) return cannot('email.summarise names no thread: summarise is called with a threadId.');
  const mail = await threadMail(tools, threadId);
  if (mail.length === 0) return cannot(`Thread ${threadId} has no mail received or sent yet (only drafts): there is nothing to summarise.`);
  const d = new MailDraft();
  for (const m of [...mail].reverse()) {
    const sentences = contentOf(m.text);
    for (const s of sentences.filter(addressesAnAssistant)) {
      d.claim('content', m, s, `${whoOf(m)} wrote words addressed to an AI assistant; they are mail content and were not followed: ${s}`);
    }
    const plain = sentences.filter((s) => !addressesAnAssistant(s));
    const key = [...new Set([plain[0], ...plain.filter((s) => isRequest(s) || isQuestion(s))].filter((s): s is string => s !== undefined))];
    for (const s of key.slice(0, PER_MESSAGE)) {
      if (d.size >= MAX_POINTS) break;
      d.claim('point', m, s, `${whoOf(m)}: ${s}`);
    }
  }
  let open = 0;
  for (const m of openRun(mail)) {
    for (const s of contentOf(m.text).filter((x) => isQuestion(x) && !addressesAnAssistant(x))) {
      if (open++ < MAX_QUESTIONS) d.claim('question', m, s);
    }
  }
  if (d.size === 0) return cannot(`The mail of thread ${threadId} holds no sentence to quote (only greetings, signatures or quoted replies).`);
  d.say(
    d.has('question')
      ? "What the thread's messages say, newest first, each point quoting its message; the open questions are those asked since the other side last wrote, newest first."
      : "What the thread's messages say, newest first, each point quoting its message; no question is open.",
  );
  return d.build();
}
