import type { ParsedMail } from 'mailparser';
import type { Queryable } from '../../../db/types.js';
import type { Logger } from '../../core/deps.js';
import type { Filed } from './arrive.js';

/*
 * Mail that carries an iCalendar part (an invitation, a reply or a cancellation, RFC 6047) is filed as any mail is;
 * then, in the same transaction, the families that read such parts get them (the calendar applies iTIP). They
 * contribute a `mailArrivals` hook (domain/core/family.ts, contributions). Mail that failed DMARC or landed in Spam
 * is never handed on: a forged reply must not change anyone's calendar.
 */

export interface CalendarPart {
  /** METHOD from the part's content type (`text/calendar; method=REPLY`), upper-cased; null when absent. */
  method: string | null;
  text: string;
}

export interface MailArrival {
  orgId: string;
  at: Date;
  /** The From address, lower-cased (DMARC aligned it with the sending domain when verdicts exist). */
  from: string;
  /** The envelope recipients that are mailboxes of the org and filed it, lower-cased. */
  to: string[];
  parts: CalendarPart[];
  /** The rows it was filed as. */
  messages: Filed[];
  /** What a hook ignores (a stale SEQUENCE, a sender who is not the attendee) it says here, with ids only. */
  log: Logger;
}

export type MailArrivalHook = (q: Queryable, arrival: MailArrival) => Promise<void>;

declare module '../../core/family.js' {
  interface Contributions {
    mailArrivals: MailArrivalHook;
  }
}

const MAX_PART_BYTES = 1024 * 1024;

/** The text/calendar parts of a parsed message (mailparser lists them among the attachments), at most 1 MB each. */
export function calendarParts(mail: ParsedMail): CalendarPart[] {
  const out: CalendarPart[] = [];
  for (const a of mail.attachments) {
    const type = (a.contentType ?? '').toLowerCase();
    if (type !== 'text/calendar' && type !== 'application/ics') continue;
    if (a.content.length > MAX_PART_BYTES) continue;
    const params = (a.headers.get('content-type') as { params?: Record<string, string> } | undefined)?.params ?? {};
    out.push({ method: params.method ? params.method.toUpperCase() : null, text: a.content.toString('utf8') });
  }
  return out;
}
