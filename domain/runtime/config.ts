import { DEFAULT_LEASE_MIN_TTL_SECONDS } from '../../protocol/methods/runtime/lease.js';

declare module '../core/deps.js' {
  interface FamilyConfig {
    /** The shortest lease.claim ttlSeconds this server takes (default 10; the lease tests run lapse cycles at 1). */
    leaseMinTtlSeconds: number;
  }
}

export const RUNTIME_CONFIG_DEFAULTS = { leaseMinTtlSeconds: DEFAULT_LEASE_MIN_TTL_SECONDS };
