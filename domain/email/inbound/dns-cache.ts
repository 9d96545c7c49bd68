import { promises as dns } from 'node:dns';
import type { DnsResolver } from './config.js';

/*
 * The SMTP listener's SPF, DKIM and DMARC lookups, kept for a minute: each name and type's answer, records or "no such
 * name", and one lookup in flight per name and type, which the messages arriving meanwhile share. Mail comes in
 * bursts from the same few domains, and a lookup is on every message's way to its 250: on the bench machine the
 * resolver lost a query now and then, each loss a one-second retry, and eight connections ingested no faster than
 * one (decision 0084). Other failures (a timeout, SERVFAIL) are not kept: a temperror says something of its moment.
 * A minute is shorter than the TTL of nearly every SPF, DKIM and DMARC record, so a changed record is seen soon.
 */

const NO_RECORD = new Set(['ENOTFOUND', 'ENODATA']);

export interface DnsCacheOptions {
  /** How long an answer is kept (60 s). */
  ttlMs?: number;
  /** Names kept at most (10,000): past it the oldest go first. */
  maxEntries?: number;
  now?: () => number;
}

/** mailauth's own default: the system's resolver. */
export const systemResolver: DnsResolver = (name, type) => dns.resolve(name, type);

type Kept = { until: number; ok: true; value: unknown } | { until: number; ok: false; error: unknown };

export function cachedResolver(resolve: DnsResolver = systemResolver, opts: DnsCacheOptions = {}): DnsResolver {
  const ttlMs = opts.ttlMs ?? 60_000;
  const maxEntries = opts.maxEntries ?? 10_000;
  const now = opts.now ?? Date.now;
  const kept = new Map<string, Kept>();
  const flying = new Map<string, Promise<unknown>>();
  const keep = (key: string, entry: Kept) => {
    kept.delete(key);
    if (kept.size >= maxEntries) kept.delete(kept.keys().next().value!);
    kept.set(key, entry);
  };
  return (name, type) => {
    const key = `${type} ${name.toLowerCase()}`;
    const hit = kept.get(key);
    // Each caller gets its own copy: an answer is arrays (TXT chunks, MX records) that a reader could change.
    if (hit && hit.until > now()) return hit.ok ? Promise.resolve(structuredClone(hit.value)) : Promise.reject(hit.error);
    let lookup = flying.get(key);
    if (!lookup) {
      lookup = resolve(name, type).then(
        (value) => {
          keep(key, { until: now() + ttlMs, ok: true, value });
          return value;
        },
        (error: unknown) => {
          if (NO_RECORD.has((error as { code?: string } | null)?.code ?? '')) keep(key, { until: now() + ttlMs, ok: false, error });
          throw error;
        },
      );
      flying.set(key, lookup);
      const done = () => flying.delete(key);
      lookup.then(done, done);
    }
    return lookup.then((value) => structuredClone(value));
  };
}
