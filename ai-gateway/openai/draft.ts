import { DraftSchema } from '../../protocol/methods/books/ask.js';
import type { Draft } from '../types.js';

/** The model's final message as a Draft, or why it is not one (`claims.0.cites: required`). */
export function parseDraft(content: string | null): { draft: Draft } | { error: string } {
  const text = (content ?? '').trim().replace(/^```(?:json)?\s*([\s\S]*?)\s*```$/, '$1');
  if (!text) return { error: 'the final message is empty' };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { error: `the final message is not JSON (${(err as Error).message})` };
  }
  const parsed = DraftSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { error: `the final message is not an answer object: ${issue.path.join('.') || '(root)'}: ${issue.message}` };
  }
  return { draft: parsed.data as Draft };
}
