import { envInt } from '../../config/env.js';
import { DEFAULT_LEASE_MIN_TTL_SECONDS } from '../../protocol/methods/runtime/lease.js';

declare module '../core/deps.js' {
  interface FamilyConfig {
    /** The shortest lease.claim ttlSeconds this server takes (default 10; the lease tests run lapse cycles at 1). */
    leaseMinTtlSeconds: number;
  }
}

export const RUNTIME_CONFIG_DEFAULTS = { leaseMinTtlSeconds: DEFAULT_LEASE_MIN_TTL_SECONDS };

export const RUNTIME_ENV_HELP = `  LEASE_MIN_TTL_SECONDS the shortest ttlSeconds lease.claim and lease.heartbeat take (default ${DEFAULT_LEASE_MIN_TTL_SECONDS}; at least 1,
                        at most 86400): below it a claim is BAD_REQUEST naming ttlSeconds`;

/** LEASE_MIN_TTL_SECONDS. */
export function loadRuntimeConfig(env: NodeJS.ProcessEnv): { leaseMinTtlSeconds: number } {
  const leaseMinTtlSeconds = envInt(env, 'LEASE_MIN_TTL_SECONDS', DEFAULT_LEASE_MIN_TTL_SECONDS, 1);
  if (leaseMinTtlSeconds > 86_400) throw new Error(`LEASE_MIN_TTL_SECONDS: must be at most 86400 (a lease lives at most a day), got ${leaseMinTtlSeconds}`);
  return { leaseMinTtlSeconds };
}
