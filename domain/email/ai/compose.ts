import { numbersIn } from '../../../ai-gateway/grounding.js';
import type { Claim, Draft } from '../../../ai-gateway/types.js';
import type { CLAIM_ROLES } from '../../../protocol/methods/email/ai.js';
import { addressesAnAssistant } from './sentences.js';

/*
 * The offline email answerers' drafts: every claim quotes the message it cites, word for word, and says what it is
 * (a point, an open question, an action, a triage reason, words addressed to an assistant). Text the draft writes
 * besides quotes holds no number, so grounding's number rule is met by construction.
 */

export type ClaimRole = (typeof CLAIM_ROLES)[number];

/** A claim of an email answer: a gateway claim with what it is (protocol/methods/email/ai.ts EmailClaim). */
export type EmailClaim = Claim & { quote: string; role: ClaimRole; value?: string; due?: string | null };

/** A message as the answerers read it (reads.ts mailView of email.thread / email.message). */
export interface MailMessage {
  id: string;
  mailboxId: string;
  threadId: string;
  state: string;
  from: { address: string; name: string } | null;
  subject: string;
  text: string;
  attachments: { id: string; filename: string; contentType: string }[];
  auth: { spf: string | null; dkim: string | null; dmarc: string | null } | null;
  sentAt: string | null;
  receivedAt: string | null;
  createdAt: string;
}

/** Mail that was said: received, or sent by the mailbox (drafts and mail waiting to leave are not). */
export const said = (m: Pick<MailMessage, 'state'>): boolean => m.state === 'received' || m.state === 'sent';

/** When the message was sent (received mail: when it arrived). */
export const dateOf = (m: Pick<MailMessage, 'receivedAt' | 'sentAt' | 'createdAt'>): Date => new Date(m.receivedAt ?? m.sentAt ?? m.createdAt);

/** Who wrote it, for a sentence: the name when it holds no number, else the address; the mailbox for its own mail. */
export function whoOf(m: Pick<MailMessage, 'from' | 'state'>): string {
  if (!m.from) return 'the mailbox';
  const name = m.from.name.trim();
  return name !== '' && numbersIn(name).length === 0 && !/[<>@"]/.test(name) ? name : m.from.address;
}

/** Something short of a message to quote when a reason rests on the message as a whole: its subject (unless it addresses an assistant), else its sender. */
export function headerQuote(m: Pick<MailMessage, 'subject' | 'from'>): string | null {
  const subject = m.subject.replace(/\s+/g, ' ').trim();
  if (subject !== '' && subject.length <= 300 && !addressesAnAssistant(subject)) return subject;
  return m.from?.address ?? null;
}

export class MailDraft {
  private readonly claims: EmailClaim[] = [];
  private readonly sentences: string[] = [];

  /** A claim of `role` quoting `quote` from message `m`; its text defaults to the quote. */
  claim(role: ClaimRole, m: Pick<MailMessage, 'id'>, quote: string, text = quote, extra: { value?: string; due?: string | null } = {}): EmailClaim {
    const claim: EmailClaim = { text, cites: [{ kind: 'record', id: m.id }], quote, role, ...extra };
    this.claims.push(claim);
    return claim;
  }

  say(sentence: string): this {
    this.sentences.push(sentence);
    return this;
  }

  get size(): number {
    return this.claims.length;
  }

  has(role: ClaimRole): boolean {
    return this.claims.some((c) => c.role === role);
  }

  build(): Draft {
    if (this.claims.length === 0) throw new Error('email answerer: an answer without claims');
    const answer = this.sentences.join(' ').slice(0, 4000);
    return { kind: 'answer', answer, claims: this.claims.slice(0, 50) };
  }
}

export const cannot = (reason: string): Draft => ({ kind: 'cannot_answer', reason });

/** The claims of a grounded answer with their roles (the gateway hands back what the provider drafted). */
export const emailClaims = (claims: readonly Claim[]): EmailClaim[] => claims as EmailClaim[];

/** A claim as the email methods return it: the message ids it cites. */
export const quoted = (c: EmailClaim) => ({
  text: c.text,
  quote: c.quote,
  cites: c.cites.flatMap((x) => (x.kind === 'record' ? [x.id] : [])),
});
