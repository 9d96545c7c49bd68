/**
 * Events of messaging.*, calling.* and email.* are written already redacted: they say that something
 * happened, by whom, where and to how many, never what was said. Body-like fields are dropped at any depth,
 * whatever a handler passed, so a careless handler cannot leak a body into the permanent chain.
 */
export const REDACTED_FAMILIES = new Set(['messaging', 'calling', 'email']);

const BODY_FIELDS = new Set([
  'body',
  'text',
  'html',
  'content',
  'subject',
  'snippet',
  'preview',
  'transcript',
  'message',
  'line',
  'caption',
  'attachments',
  'draft',
  'quote',
  'reply',
  'summary',
  'note',
  'comment',
]);

export function redactPayload(family: string, payload: unknown): unknown {
  if (!REDACTED_FAMILIES.has(family)) return payload;
  return stripBodies(payload);
}

/** Body-like fields dropped at any depth: also what a side chain's records pass through (ledger/record-chain.ts users). */
export function stripBodies(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripBodies);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!BODY_FIELDS.has(k.toLowerCase())) out[k] = stripBodies(v);
  return out;
}
