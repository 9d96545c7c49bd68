import type { AskInput, Draft, Toolbox } from '../../../ai-gateway/types.js';
import type { TRIAGE_CATEGORIES, TRIAGE_PRIORITIES } from '../../../protocol/methods/email/ai.js';
import { cannot, dateOf, headerQuote, MailDraft, whoOf, type MailMessage } from './compose.js';
import { openRun, threadMail } from './local-summarise.js';
import { scopeOf } from './reads.js';
import { addressesAnAssistant, contentOf, dueFrom, isQuestion, isRequest } from './sentences.js';

/*
 * email.triage offline (no model): category, priority and whether the thread needs a reply, each from the headers and
 * words of its newest mail, each quoting what it rests on. Headers first (a no-reply sender is a notification, an
 * unsubscribe line a newsletter), then words (billing, meeting), then requests and questions. Priority: urgent words,
 * then a deadline within two days; notifications and newsletters are low; mail that failed DMARC is never above
 * normal (a spoofed "URGENT: pay now" stays down). Triage only says: it never moves mail anywhere.
 */

type Category = (typeof TRIAGE_CATEGORIES)[number];
type Priority = (typeof TRIAGE_PRIORITIES)[number];

const NO_REPLY = /^(no-?reply|do-?not-?reply|notifications?|notify|alerts?|mailer-daemon|postmaster|bounces?|automated|system)([+._-]|$)/i;
const NEWSLETTER = /\b(unsubscribe|newsletter|mailing list|view (this|it)( email)? in (your|a) browser|email preferences)\b/i;
const BILLING = /\b(invoices?|payments?|paid|pay|receipts?|overdue|remittance|billing|bills?|refunds?|quotes?|quotations?|balance due|amount due)\b/i;
const MEETING = /\b(meeting|meet|call|calendar|schedule|reschedule|availability|available|agenda|zoom|teams invite)\b/i;
const URGENT = /\b(urgent|urgently|asap|as soon as possible|immediately|emergency)\b/i;
const PRESSING = /\b(overdue|final notice|deadline|today|tomorrow|tonight|end of (the )?day|eod)\b/i;
const RANK: Priority[] = ['low', 'normal', 'high', 'urgent'];

export const triageQuestion = (threadId: string) =>
  `Triage thread ${threadId}: its category, priority and whether it needs a reply, each quoting the words or header it rests on.`;

interface Found {
  m: MailMessage;
  quote: string;
}

/** The first sentence (newest mail first) matching `test`, else the first subject that does. */
function find(mail: readonly MailMessage[], test: (s: string, m: MailMessage) => boolean): Found | null {
  for (const m of mail) {
    const s = contentOf(m.text).find((x) => !addressesAnAssistant(x) && test(x, m));
    if (s) return { m, quote: s };
  }
  for (const m of mail)
    if (m.subject.trim() !== '' && !addressesAnAssistant(m.subject) && test(m.subject, m)) return { m, quote: m.subject.replace(/\s+/g, ' ').trim() };
  return null;
}

function categoryOf(run: readonly MailMessage[]): { category: Category; why: string; at: Found } {
  const newest = run[0];
  if (newest.from && NO_REPLY.test(newest.from.address.split('@')[0])) {
    return { category: 'notification', why: 'it comes from an address that takes no replies', at: { m: newest, quote: newest.from.address } };
  }
  const rules: [Category, (s: string, m: MailMessage) => boolean, string][] = [
    ['newsletter', (s) => NEWSLETTER.test(s), 'it reads as a newsletter or mailing'],
    ['billing', (s) => BILLING.test(s), 'it is about invoices or payment'],
    ['meeting', (s) => MEETING.test(s), 'it is about meeting or a call'],
    ['request', isRequest, 'it asks for something to be done'],
    ['question', isQuestion, 'it asks a question'],
  ];
  for (const [category, test, why] of rules) {
    const at = find(run, test);
    if (at) return { category, why, at };
  }
  const invite = run.flatMap((m) => m.attachments.filter((a) => /\.ics$/i.test(a.filename)).map((a) => ({ m, quote: a.filename })))[0];
  if (invite) return { category: 'meeting', why: 'it carries a calendar invitation', at: invite };
  const first = contentOf(newest.text).find((s) => !addressesAnAssistant(s));
  return { category: 'fyi', why: 'it tells, and asks nothing', at: { m: newest, quote: first ?? headerQuote(newest) ?? newest.id } };
}

export async function triageThread(input: Pick<AskInput, 'question'>, tools: Toolbox): Promise<Draft> {
  const threadId = scopeOf(input.question).scope.threadId;
  if (!threadId) return cannot('email.triage names no thread: triage is called with a threadId.');
  const mail = await threadMail(tools, threadId);
  if (mail.length === 0) return cannot(`Thread ${threadId} has no mail received or sent yet (only drafts): there is nothing to triage.`);
  const run = openRun(mail);
  const newest = run[0];
  const d = new MailDraft();
  const ours = newest.state === 'sent';

  const { category, why, at } = ours
    ? { category: 'fyi' as Category, why: 'the newest message is the mailbox’s own', at: { m: newest, quote: headerQuote(newest) ?? newest.id } }
    : categoryOf(run);
  d.claim('category', at.m, at.quote, `Category ${category}: ${why}: ${at.quote}`, { value: category });

  let priority: Priority = category === 'notification' || category === 'newsletter' || ours ? 'low' : 'normal';
  let because: Found | null = null;
  let reason = ours ? 'the mailbox wrote last' : priority === 'low' ? 'automated or bulk mail' : 'nothing in it is pressing';
  if (!ours) {
    const urgent = find(run, (s) => URGENT.test(s));
    const soon = find(run, (s, m) => PRESSING.test(s) || (isRequest(s) && withinDays(s, m, 2)));
    if (urgent) [priority, because, reason] = ['urgent', urgent, 'it says it is urgent'];
    else if (soon) [priority, because, reason] = ['high', soon, 'it has a deadline within two days'];
  }
  const failed = mail.filter((m) => m.state === 'received' && m.auth?.dmarc === 'fail');
  if (failed.length > 0 && RANK.indexOf(priority) > RANK.indexOf('normal')) {
    priority = 'normal';
    because = { m: failed[failed.length - 1], quote: 'fail' };
    reason = 'its mail failed DMARC (it may not come from who it says), so it is not raised above normal';
  }
  const pAt = because ?? { m: newest, quote: headerQuote(newest) ?? newest.id };
  d.claim('priority', pAt.m, pAt.quote, `Priority ${priority}: ${reason}: ${pAt.quote}`, { value: priority });

  const asks = ours || category === 'notification' || category === 'newsletter' ? null : find(run, (s) => isRequest(s) || isQuestion(s));
  if (asks) d.claim('needs_reply', asks.m, asks.quote, `Needs a reply: ${whoOf(asks.m)} asks: ${asks.quote}`, { value: 'yes' });
  else {
    const why = ours
      ? 'the mailbox answered last'
      : category === 'notification' || category === 'newsletter'
        ? 'it is automated or bulk mail'
        : 'nothing in it asks';
    const q = headerQuote(newest) ?? newest.id;
    d.claim('needs_reply', newest, q, `No reply needed: ${why}: ${q}`, { value: 'no' });
  }
  for (const m of run) {
    for (const s of contentOf(m.text).filter(addressesAnAssistant)) {
      d.claim('content', m, s, `Words addressed to an AI assistant, reported as mail content and not followed: ${s}`);
    }
  }
  d.say(`Category ${category}, priority ${priority}; ${asks ? 'it needs a reply' : 'it needs no reply'}.`);
  return d.build();
}

function withinDays(s: string, m: MailMessage, days: number): boolean {
  const due = dueFrom(s, dateOf(m));
  return due !== null && Date.parse(due) - Date.parse(dateOf(m).toISOString().slice(0, 10)) <= days * 86_400_000;
}
