import type { z } from 'zod';
import { DraftSchema } from '../draft-schema.js';
import type { Draft } from '../types.js';

/** The model's final message as a Draft of the answerer's shape, or why it is not one (`claims.0.cites: required`). */
export function parseDraft(content: string | null, schema: z.ZodType = DraftSchema): { draft: Draft } | { error: string } {
  const text = (content ?? '').trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/, '$1');
  if (!text) return { error: 'the final message is empty' };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { error: `the final message is not JSON (${(err as Error).message})` };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { error: `the final message is not an answer object: ${issue.path.join('.') || '(root)'}: ${issue.message}` };
  }
  return { draft: parsed.data as Draft };
}
