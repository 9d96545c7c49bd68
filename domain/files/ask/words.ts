/*
 * The offline answerer's reading of a question: the words worth searching for, how well a passage matches them, and
 * whether the question asks for an act (files.ask only reads). Deterministic patterns over the question as written.
 */

const STOP = new Set(
  (
    'a an the is are was were be been being do does did done what whats which who whom whose when where why how of in on at to for from by with ' +
    'about and or nor not no our ours we us you your yours i me my mine it its this that these those there here their they them any all some ' +
    'can could would should will shall may might must has have had tell say says said file files doc docs document documents drive sheet ' +
    'sheets deck decks please give show find much many if as than then so up out into over per there s t let lets know'
  ).split(' '),
);

const fold = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();

/** The words of a text, folded (no accents, lower case). */
export const wordsOf = (text: string): string[] => fold(text).match(/[\p{L}\p{N}]+/gu) ?? [];

/** The question's key words, in order, once each: no stop words, single letters or more than 12. */
export function keywords(question: string): string[] {
  const out: string[] = [];
  for (const w of wordsOf(question)) {
    if (STOP.has(w) || (w.length < 2 && !/\d/.test(w)) || out.includes(w)) continue;
    out.push(w);
  }
  return out.slice(0, 12);
}

/** A key word matches a word of the text: the same, or one a few letters longer or shorter (notice, notices). */
function matches(key: string, word: string): boolean {
  if (key === word) return true;
  if (/\d/.test(key) || key.length < 4 || word.length < 4) return false;
  const [short, long] = key.length <= word.length ? [key, word] : [word, key];
  return long.startsWith(short) && long.length - short.length <= 3;
}

/** How many of the key words a text holds. */
export function score(text: string, keys: readonly string[]): number {
  const words = new Set(wordsOf(text));
  return keys.filter((k) => [...words].some((w) => matches(k, w))).length;
}

/** The question asks to change the rules, or to act (share, delete, send…), not what the files say. */
const RULES = /\b(ignore|disregard|forget|override|bypass)\b.*\b(rules?|instructions?|prompt|guards?)\b|\b(system prompt|jailbreak)\b/i;
const POLITE =
  /^(?:(?:please|pls|kindly|now|ok|okay|then)\s+|(?:can|could|would|will)\s+you\s+(?:please\s+)?|i\s+(?:want|need|would like)\s+(?:you\s+)?to\s+)*/i;
const ACTS =
  /^(?:share|unshare|grant|revoke|delete|remove|trash|purge|rename|move|copy|duplicate|send|email|e-mail|mail|forward|edit|write|change|update|create|make|upload|export|download|publish|approve|star|restore|recover)\b/i;

export function asksToAct(question: string): 'rules' | 'act' | null {
  const q = question.replace(/\s+/g, ' ').trim();
  if (RULES.test(q)) return 'rules';
  return ACTS.test(q.replace(POLITE, '')) ? 'act' : null;
}

/**
 * The part of a long text to quote: the sentence (or run of sentences) holding the most key words, cut at a word
 * boundary to at most `max` characters. Always a whole-word substring of the text (as grounding checks quotes); '' when
 * there is none (a run of 1000 characters without a space).
 */
export function passageOf(text: string, keys: readonly string[], max = 600): string {
  const whole = text.replace(/\s+/g, ' ').trim();
  if (whole.length <= max) return whole;
  const sentences = whole.split(/(?<=[.!?;:])\s+/);
  let best = sentences[0];
  let bestScore = -1;
  for (const s of sentences) {
    const sc = score(s, keys);
    if (sc > bestScore) [best, bestScore] = [s, sc];
  }
  if (best.length <= max) return best;
  const cut = best.slice(0, max + 1);
  const space = cut.lastIndexOf(' ');
  if (space > 0) return cut.slice(0, space);
  return best.length <= 1000 ? best : '';
}
