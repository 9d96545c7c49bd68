/** An address as a bare `someone@example.com` or with a display name. */
export type MailAddress = string | { name?: string; address: string };

export interface MailAttachment {
  filename: string;
  /** The bytes themselves: the service never reads a path or fetches a URL for a caller. */
  content: Buffer | Uint8Array;
  contentType?: string;
  /** Content-ID, for an image the html refers to as `cid:...`. */
  cid?: string;
}

export interface MailMessage {
  from: MailAddress;
  to: MailAddress[];
  cc?: MailAddress[];
  bcc?: MailAddress[];
  replyTo?: MailAddress;
  subject: string;
  text: string;
  html?: string;
  /** Message-ID to use (`<id@domain>`); a new one is made from the sender's domain when absent. */
  messageId?: string;
  inReplyTo?: string;
  references?: string[];
  /** Extra header fields (e.g. List-Unsubscribe, Auto-Submitted); never one the message itself sets. */
  headers?: Record<string, string>;
  attachments?: MailAttachment[];
  /**
   * An iCalendar part (RFC 6047 iMIP): sent as the second part of a multipart/alternative beside the text, as
   * `text/calendar; method=<method>`, so calendar clients offer to accept or decline.
   */
  calendar?: { method: 'REQUEST' | 'CANCEL' | 'REPLY' | 'PUBLISH'; content: string };
  /**
   * Who the message is delivered to when that is not everyone in to, cc and bcc: a redirect (the original header
   * fields, new recipients), or mail whose recipients on this server the family delivered itself. `from`: the
   * envelope sender (MAIL FROM) when it is not the From field (a redirect: the redirecting mailbox).
   */
  envelope?: { from?: string; to: MailAddress[] };
}

/** Why one recipient was refused: by the relay (its SMTP reply) or by internal delivery. */
export interface Refusal {
  address: string;
  response: string;
  /** A 4xx reply or a local hiccup: the same message may go through later. */
  temporary: boolean;
}

/**
 * What became of one send. `sent` means the relay accepted it (for `accepted`; any `rejected` were refused);
 * `internal` that every recipient is on this server and got it; `outboxed` that it was written to the outbox
 * and NOT delivered (no relay is configured); `failed` that nothing was delivered.
 */
export interface Delivery {
  status: 'sent' | 'internal' | 'outboxed' | 'failed';
  /** The Message-ID header, angle brackets included. */
  messageId: string;
  /** Delivered: taken by the relay, or delivered on this server. */
  accepted: string[];
  /** Of `accepted`, the recipients delivered on this server. */
  internal: string[];
  /** Written to the outbox file and not delivered. */
  outboxed: string[];
  rejected: string[];
  refusals: Refusal[];
  /** The outbox file, for `outboxed`. */
  file?: string;
  /**
   * What left, byte for byte, for `sent` and `outboxed`: the RFC 5322 bytes handed to the relay (no Bcc field), or
   * those the outbox file holds (Bcc kept); DKIM-signed when DKIM is configured. Never put it in a ledger event.
   */
  raw?: Buffer;
  /** For anything short of full delivery, in words (may name addresses: never put it in a ledger event). */
  error?: string;
  /** For `failed`: worth trying again later (network, timeout, 4xx), as opposed to a 5xx refusal. */
  temporary?: boolean;
}

/**
 * A family's hook for mail to people on this server. Consulted only when no relay is configured: with a relay,
 * every recipient's mail goes through it, so a member whose mailbox lives elsewhere still gets it there.
 */
export interface LocalRecipients {
  /** Of these addresses (lower-cased), the ones this family delivers to itself. */
  claim(addresses: readonly string[]): Promise<readonly string[]>;
  /** Deliver to those it claimed; a throw refuses each of them (temporary), nothing else. */
  deliver(message: Readonly<MailMessage>, recipients: readonly string[], messageId: string): Promise<void>;
}

export interface MailService {
  send(message: MailMessage): Promise<Delivery>;
  /** Register a family's local recipients; returns the function that removes them again. */
  registerLocalRecipients(hook: LocalRecipients): () => void;
  /** One line for the startup log: where mail goes (no secrets). */
  describe(): string;
  close(): Promise<void>;
}
