import { timingSafeEqual } from 'node:crypto';
import type { Session } from '../../domain/people/index.js';

/** Constant-time comparison of the CSRF header with the session's token. */
export function csrfMatches(session: Session, given: string | string[] | undefined): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(session.csrfToken);
  return a.length === b.length && timingSafeEqual(a, b);
}
