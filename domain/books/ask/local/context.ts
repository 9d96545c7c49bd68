import type { Draft, Toolbox } from '../../../../ai-gateway/types.js';

/** What every intent's planner gets: the reads, the business date, the question as asked and normalised. */
export interface AskContext {
  tools: Toolbox;
  today: string;
  /** As asked (for names in their capitals). */
  question: string;
  /** Lower-cased, whitespace collapsed (classify.normalise). */
  q: string;
}

/** What the local answerer can answer, for every refusal. */
export const CAN_ANSWER =
  "I can answer, from this org's books: what customers owe and who is overdue; the cash position; bills due, held or awaiting approval; the GST and BAS position; payroll cost; the largest expenses; what happened to a named invoice or bill (by number, reference or id); and recent ledger activity.";

export const cannot = (reason: string): Draft => ({ kind: 'cannot_answer', reason });

/** An org name in a question as written, for matching contacts: lower case, no company suffixes or punctuation. */
export function simpleName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[’']/g, '')
    .replace(/[^a-z0-9& ]+/g, ' ')
    .replace(/\b(pty|ltd|limited|inc|llc|co|company|the)\b/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * A party the question names with capitals ("How much does Coastal Realty owe?", "bills from Printworks"),
 * or null. Only used to refuse when no contact of the org has that name, rather than answer for everyone.
 */
export function namedParty(question: string): string | null {
  const phrase = String.raw`((?:[A-Z][\w&'.-]*)(?:\s+(?:[A-Z][\w&'.-]*|&|of|and))*)`;
  const patterns = [
    new RegExp(String.raw`\b(?:does|do|did|has|have|is|are)\s+${phrase}\s+(?:still\s+)?(?:owe|owing|pay|paid|overdue|behind|in arrears)`),
    new RegExp(
      String.raw`\b(?:we owe|owed by|owing from|owe to|invoices? (?:to|for|from)|bills? (?:from|for|to)|from supplier|from customer|customer|supplier)\s+${phrase}`,
    ),
  ];
  for (const re of patterns) {
    const m = re.exec(question);
    if (!m) continue;
    const name = m[1].replace(/\s+(and|of|&)$/, '').trim();
    if (/^(we|us|i|you|they|our|the|any|all|INV|BAS|GST)\b/i.test(name)) continue;
    return name;
  }
  return null;
}

/**
 * The contacts whose (simplified) names the question mentions, longest name first; failing any, those whose
 * first word (five letters or more: "Printworks", not "Tech") it mentions.
 */
export function contactsNamed<T extends { id: string; name: string }>(q: string, contacts: readonly T[]): T[] {
  const text = ` ${simpleName(q)} `;
  const byName = (match: (n: string) => boolean) =>
    [...new Map(contacts.filter((c) => match(simpleName(c.name))).map((c) => [c.id, c])).values()].sort((a, b) => b.name.length - a.name.length);
  const full = byName((n) => n.length >= 3 && text.includes(` ${n} `));
  if (full.length) return full;
  return byName((n) => {
    const first = n.split(' ')[0];
    return first.length >= 5 && text.includes(` ${first} `);
  });
}
