/**
 * How requests are logged at info (LOG_REQUESTS): `line`, one line per answered request (method, URL with its
 * credentials redacted, status, milliseconds, request id); `full`, fastify's two (the request on arrival, the reply
 * when sent, with their serializers' detail); `off`, none. Errors are logged in every mode.
 */
export type RequestLog = 'line' | 'full' | 'off';

export const REQUEST_LOGS: readonly RequestLog[] = ['line', 'full', 'off'];

/** LOG_REQUESTS: unset or empty is `line`. */
export function requestLogFrom(raw: string | undefined): RequestLog {
  const value = (raw ?? '').trim().toLowerCase() || 'line';
  if (!(REQUEST_LOGS as readonly string[]).includes(value))
    throw new Error(`LOG_REQUESTS: must be one of ${REQUEST_LOGS.join(', ')}, got ${JSON.stringify(raw)}`);
  return value as RequestLog;
}
