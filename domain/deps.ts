import { EventEmitter } from 'node:events';
import type { Db } from '../db/types.js';
import type { AiDeps } from '../ai-gateway/providers.js';

export interface DomainConfig {
  /** Lifetime of a signature hold and of the approval filed for it. */
  holdTtlMs: number;
  /** Where a human opens an approval (the approval inbox); quoted in hold messages. */
  publicUrl: string;
}

export const DEFAULT_DOMAIN_CONFIG: DomainConfig = {
  holdTtlMs: 24 * 60 * 60 * 1000,
  publicUrl: 'http://localhost:8080',
};

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

/** Business time: the books' "today" (due dates, overdue, promises, pay dates). Tests and the demo seed set it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** What every handler may reach besides its transaction. */
export interface Deps {
  db: Db;
  config: DomainConfig;
  clock: Clock;
  /** HMAC key for signature tokens (instance secret). */
  signingKey: string;
  /** In-process notifications, e.g. `approval.decided` for long-polls. */
  bus: EventEmitter;
  log: Logger;
  /** The AI gateway behind books.ask: its configuration and provider (ai-gateway/). */
  ai: AiDeps;
}
