/*
 * The sending settings the email family declares (Family.config; tests shorten them): how long a review waits for a
 * human, the hourly cap on an agent's external mail, and how a delivery the relay defers (4xx) is retried.
 */

export interface EmailSendingConfig {
  /** An undecided review expires then, and its message goes back to draft (7 days). */
  reviewTtlMs: number;
  /** External messages an agent sends in an hour before the next waits for a human (50). */
  hourlyExternalCap: number;
  /** The first retry of a deferred delivery waits this long, doubling up to an hour (60 s). */
  retryDelaySeconds: number;
  /** A deferred delivery is retried until this long after it first left, then fails (24 h). */
  retryWindowMs: number;
}

declare module '../../core/deps.js' {
  interface FamilyConfig {
    /** Reviews, the hourly cap and delivery retries of outbound mail. */
    emailSending: EmailSendingConfig;
  }
}

export const SENDING_DEFAULTS: EmailSendingConfig = {
  reviewTtlMs: 7 * 24 * 3600_000,
  hourlyExternalCap: 50,
  retryDelaySeconds: 60,
  retryWindowMs: 24 * 3600_000,
};

/** More recipients than this wait for a human whatever the policy. */
export const MANY_RECIPIENTS = 20;
/** The duplicate guard's window. */
export const DUPLICATE_WINDOW_MS = 10 * 60_000;
/** sendAt at most this far ahead. */
export const MAX_SEND_AHEAD_MS = 30 * 24 * 3600_000;
