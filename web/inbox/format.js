// Formatting for people: dates, time left, statuses, and the hash check.
import canonicalize from 'canonicalize';

const LOCALE = 'en-AU';
const dateTime = new Intl.DateTimeFormat(LOCALE, { dateStyle: 'medium', timeStyle: 'short' });

/** `15 Nov 2026, 9:00 am` in the browser's time zone. */
export const when = (iso) => (iso ? dateTime.format(new Date(iso)) : '');

/** `3 d 4 h left`, `23 h 59 min left`, `4 min 12 s left`, `expired`: the time before `iso`, counted from `now` (ms). */
export function timeLeft(iso, now) {
  const ms = Date.parse(iso) - now;
  if (!(ms > 0)) return 'expired';
  const s = Math.floor(ms / 1000);
  const hours = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (hours >= 48) return `${Math.floor(hours / 24)} d ${hours % 24} h left`;
  if (hours > 0) return `${hours} h ${m} min left`;
  if (m > 0) return `${m} min ${sec} s left`;
  return `${sec} s left`;
}

/** Less than an hour left: shown with emphasis. */
export const urgent = (iso, now) => Date.parse(iso) - now < 60 * 60 * 1000;

export const STATUS = {
  pending: 'Pending',
  approved: 'Approved',
  rejected: 'Rejected',
  expired: 'Expired',
};

/** `books agent (agt_…)`, or the id alone when the name is unknown. */
export const who = (name, id) => (name ? `${name} (${id})` : id);

/**
 * Recompute the payload hash in the browser: SHA-256 of the canonical JSON (RFC 8785, the same library the
 * server uses) of {actionClass, subjectId, params}. Null where the browser offers no Web Crypto (an insecure
 * context such as plain http on a non-local host); the server's own check is shown then.
 */
export async function hashInBrowser(signed) {
  if (!globalThis.crypto || !crypto.subtle) return null;
  const text = canonicalize(signed);
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
  return { text, hex };
}
