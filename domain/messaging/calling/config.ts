/**
 * LiveKit settings (docs/configuration.md), read once from the environment by the CLI and passed down
 * (runtime options -> DomainConfig.livekit, declared below). Unset, calling is control plane and record only: no media tokens,
 * no room or egress calls.
 */
import { envInt } from '../../../config/env.js';

export interface LivekitConfig {
  /** The LiveKit server: clients connect to it (ws/wss), the server API is called on its http(s) form. */
  url: string;
  apiKey: string;
  apiSecret: string;
  /** Lifetime of a join token (seconds). */
  tokenTtlSeconds: number;
  /** Timeout of one server API request (seconds). */
  requestTimeoutSeconds: number;
}

declare module '../../core/deps.js' {
  interface FamilyConfig {
    /** Call media (LIVEKIT_*); null: calls are control plane and record only. */
    livekit: LivekitConfig | null;
  }
}

export const LIVEKIT_ENV_HELP = `Calls (LiveKit media; unset = calls are control plane and record only):
  LIVEKIT_URL           the LiveKit server, e.g. wss://livekit.example.com (clients connect there; the room and egress
                        APIs are called on its https form)
  LIVEKIT_API_KEY       API key (required with LIVEKIT_URL)
  LIVEKIT_API_SECRET    API secret (required with LIVEKIT_URL); also verifies LiveKit's webhooks at
                        POST /api/v1/calling/livekit-webhook (recordings ready or failed)
  LIVEKIT_TOKEN_TTL_SECONDS  lifetime of a join token (default 21600)
  LIVEKIT_TIMEOUT_SECONDS    timeout of one room or egress API request (default 10)`;

export function loadLivekitConfig(env: NodeJS.ProcessEnv): LivekitConfig | null {
  const url = env.LIVEKIT_URL?.trim();
  const apiKey = env.LIVEKIT_API_KEY?.trim();
  const apiSecret = env.LIVEKIT_API_SECRET?.trim();
  if (!url) {
    if (apiKey || apiSecret) throw new Error('LIVEKIT_API_KEY, LIVEKIT_API_SECRET: set LIVEKIT_URL too, or neither');
    return null;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('LIVEKIT_URL: not a URL (wss://host, https://host)');
  }
  if (!['ws:', 'wss:', 'http:', 'https:'].includes(parsed.protocol))
    throw new Error(`LIVEKIT_URL: the scheme must be ws, wss, http or https, got ${parsed.protocol.replace(/:$/, '')}`);
  if (!apiKey || !apiSecret) throw new Error('LIVEKIT_API_KEY, LIVEKIT_API_SECRET: both are required with LIVEKIT_URL');
  return {
    url: url.replace(/\/$/, ''),
    apiKey,
    apiSecret,
    tokenTtlSeconds: envInt(env, 'LIVEKIT_TOKEN_TTL_SECONDS', 6 * 60 * 60, 60),
    requestTimeoutSeconds: envInt(env, 'LIVEKIT_TIMEOUT_SECONDS', 10, 1),
  };
}
