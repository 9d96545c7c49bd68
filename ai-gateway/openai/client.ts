import OpenAI from 'openai';
import type { OpenAiSettings } from '../config.js';

/** Headers the client sets itself; anything else (e.g. from OPENAI_CUSTOM_HEADERS) is dropped before sending. */
const OWN_HEADERS = /^(accept|content-type|content-length|user-agent|authorization|idempotency-key|x-stainless-[a-z0-9-]+)$/i;

/** What one HTTP attempt came to: a status, or the transport error. */
export type Attempt = { status: number } | { error: 'timeout' | 'connection' | 'aborted'; detail: string };

export const describeAttempt = (a: Attempt, timeoutMs: number): string =>
  'status' in a
    ? `HTTP ${a.status}`
    : a.error === 'timeout'
      ? `timeout after ${timeoutMs} ms`
      : a.error === 'aborted'
        ? 'aborted'
        : `connection error: ${a.detail}`;

export interface RecordingClient {
  client: OpenAI;
  /** Attempts of the request in flight; take() returns and clears them. */
  take(): Attempt[];
}

/**
 * An openai client for one ask, configured only from the settings given: apiKey and baseURL explicitly,
 * organization/project/webhook secret null and logging off, so the client reads none of OPENAI_API_KEY,
 * OPENAI_BASE_URL, OPENAI_ORG_ID, OPENAI_PROJECT_ID, OPENAI_LOG; and a fetch that sends only the client's
 * own headers (OPENAI_CUSTOM_HEADERS is ignored) and records every attempt, so retries and their reasons
 * (429, 500, timeout) can be audited. The client retries (maxRetries) and times out (timeout) itself.
 */
export function recordingClient(settings: OpenAiSettings, outer: AbortSignal): RecordingClient {
  let attempts: Attempt[] = [];
  const recordingFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers);
    for (const name of [...headers.keys()]) if (!OWN_HEADERS.test(name)) headers.delete(name);
    try {
      const res = await fetch(input, { ...init, headers });
      attempts.push({ status: res.status });
      return res;
    } catch (err) {
      const e = err as Error;
      const aborted = e?.name === 'AbortError' || init?.signal?.aborted === true;
      attempts.push(
        outer.aborted
          ? { error: 'aborted', detail: 'deadline' }
          : aborted
            ? { error: 'timeout', detail: e.message }
            : { error: 'connection', detail: String((e as { cause?: unknown }).cause ?? e.message).slice(0, 200) },
      );
      throw err;
    }
  };
  const client = new OpenAI({
    apiKey: settings.apiKey,
    baseURL: settings.baseURL,
    organization: null,
    project: null,
    webhookSecret: null,
    adminAPIKey: null,
    maxRetries: settings.maxRetries,
    timeout: settings.requestTimeoutMs,
    logLevel: 'off',
    fetch: recordingFetch,
  });
  return {
    client,
    take() {
      const taken = attempts;
      attempts = [];
      return taken;
    },
  };
}
