import { AI_ENV_HELP, loadAiConfig, type AiConfig } from '../ai-gateway/config.js';

/** Server settings, from the environment. Every variable is optional; the defaults start a local server. */
export interface ServerConfig {
  port: number;
  host: string;
  databaseUrl?: string;
  dataDir: string;
  /** Where new PGlite databases are copied from; null = PGlite's initdb every time (db/pglite-template.ts). */
  pgliteTemplateDir?: string | null;
  bootstrapAdminKey?: string;
  rateLimitPerMinute: number;
  publicUrl: string;
  holdTtlMs: number;
  logLevel: string;
  poolSize: number;
  lockTimeoutMs: number;
  /** The AI gateway behind books.ask (AI_*). */
  ai: AiConfig;
}

export const ENV_HELP = `Environment:
  PORT                  port to serve on (default 8080)
  HOST                  address to bind (default 127.0.0.1; 0.0.0.0 to serve the network)
  DATABASE_URL          PostgreSQL connection string; unset = embedded PGlite
  DATA_DIR              PGlite data directory (default ./.data; locked to one process)
  PGLITE_TEMPLATE_DIR   where the migrated empty PGlite database that new data dirs are copied from is kept
                        (default node_modules/.cache/workspace-ops; built by npm install or on first need;
                        off = run PGlite's initdb and every migration for each new data dir)
  BOOTSTRAP_ADMIN_KEY   on an empty database, use this exact string as the default org's admin key
  RATE_LIMIT_PER_MINUTE requests per minute per key (default 6000; 0 = off)
  PUBLIC_URL            base URL humans use to reach this server (default http://localhost:PORT)
  HOLD_TTL_MS           lifetime of a signature hold and its approval (default 86400000)
  PG_POOL_SIZE          PostgreSQL pool size (default 20)
  PG_LOCK_TIMEOUT_MS    longest wait for a row lock, e.g. a duplicate idempotency key in flight (default 5000)
  LOG_LEVEL             pino level (default info)

${AI_ENV_HELP}`;

function int(name: string, fallback: number, env: NodeJS.ProcessEnv): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name}: must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return n;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const port = int('PORT', 8080, env);
  return {
    port,
    host: env.HOST || '127.0.0.1',
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.DATA_DIR || './.data',
    pgliteTemplateDir: env.PGLITE_TEMPLATE_DIR === 'off' ? null : env.PGLITE_TEMPLATE_DIR || undefined,
    bootstrapAdminKey: env.BOOTSTRAP_ADMIN_KEY || undefined,
    rateLimitPerMinute: int('RATE_LIMIT_PER_MINUTE', 6000, env),
    publicUrl: (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/$/, ''),
    holdTtlMs: int('HOLD_TTL_MS', 24 * 60 * 60 * 1000, env),
    logLevel: env.LOG_LEVEL || 'info',
    poolSize: int('PG_POOL_SIZE', 20, env),
    lockTimeoutMs: int('PG_LOCK_TIMEOUT_MS', 5000, env),
    ai: loadAiConfig(env),
  };
}
