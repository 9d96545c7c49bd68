/** What an anonymous caller may cost an org through pairing.request. 0 turns a limit off. */
export interface PairingLimits {
  /** Pending (unexpired, unapproved) pairings one org may hold; more answer RATE_LIMITED. */
  pendingMax: number;
  /** First pairing.request calls per org slug per hour, known or not, across every process. */
  perOrgPerHour: number;
  /** pairing.request calls (first calls and polls) per source address per minute, across every process. */
  perAddressPerMinute: number;
  /** Every pairing.request answer leaves no sooner than this: known and unknown orgs take the same time. */
  answerFloorMs: number;
}

export const DEFAULT_PAIRING_LIMITS: PairingLimits = { pendingMax: 20, perOrgPerHour: 10, perAddressPerMinute: 30, answerFloorMs: 100 };

declare module '../../core/deps.js' {
  interface FamilyConfig {
    /** Anonymous pairing's limits (PAIRING_*). */
    pairing: PairingLimits;
  }
}
