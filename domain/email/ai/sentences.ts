/*
 * How the offline answerers read mail: the sentences of a message's own text (greetings, sign-offs and signatures
 * left out), which of them ask something, which address an AI assistant instead of the mailbox's people, and the
 * date an action's words give. Deterministic patterns over the text as written. Every sentence returned is a run
 * of whole words of the text with whitespace squashed, so it can be quoted as grounding checks quotes.
 */

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

const GREETING = /^(hi|hello|hey|dear|good (morning|afternoon|evening)|greetings)\b[^.!?]{0,60}[,!:]?$/i;
const SIGN_OFF =
  /^(thanks|thank you|many thanks|cheers|best|best regards|kind regards|regards|warm regards|all the best|sincerely|yours( truly| sincerely)?|talk soon|speak soon)\b[^.!?]{0,40}[,.!]?$/i;
/** A signature starts at "-- " (RFC 3676) or at "Sent from my …". */
const SIGNATURE = /^(--\s*|sent from my \S+.*)$/i;
const LIST_ITEM = /^\s*([-*•]|\d{1,2}[.)])\s+/;
/** Longest quote taken from one sentence (cut at a word boundary). */
const MAX_QUOTE = 300;

/** The sentences of a text, in order: paragraphs by blank lines, list items on their own, cut after . ! ? */
export function sentencesOf(text: string): string[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    const joined = squash(paragraph.join(' '));
    paragraph = [];
    if (joined === '') return;
    for (const s of joined.split(/(?<=[.!?])\s+(?=["'(\p{Lu}\p{N}])/u)) {
      const t = cut(s.trim());
      if (t !== '') out.push(t);
    }
  };
  for (const line of lines) {
    if (SIGNATURE.test(line.trim())) break;
    if (line.trim() === '') flush();
    else if (LIST_ITEM.test(line)) {
      flush();
      paragraph.push(line);
      flush();
    } else paragraph.push(line);
  }
  flush();
  return out;
}

/** At most MAX_QUOTE characters, cut at a space (whole words stay whole). */
function cut(s: string): string {
  if (s.length <= MAX_QUOTE) return s;
  const head = s.slice(0, MAX_QUOTE + 1);
  const space = head.lastIndexOf(' ');
  return space > 0 ? head.slice(0, space) : '';
}

/** A sentence that says something: not a greeting, a sign-off, or a name alone. */
export function isContent(s: string): boolean {
  if (GREETING.test(s) || SIGN_OFF.test(s)) return false;
  return /[\p{L}\p{N}]{2,}/u.test(s) && s.split(' ').length >= 3;
}

/** The content sentences of a text. */
export const contentOf = (text: string): string[] => sentencesOf(text).filter(isContent);

export const isQuestion = (s: string): boolean => /\?["')\]]*$/.test(s);

const REQUEST = [
  /^(please|pls|kindly)\b/i,
  /\b(could|can|would|will) you\b/i,
  /\b(i|we)('d| would) (like|appreciate|be grateful)\b/i,
  /\b(i|we) need (you|your|a|an|the)\b/i,
  /\blet (me|us) know\b/i,
  /\bplease\b/i,
  /^(send|confirm|review|sign|pay|call|check|approve|book|schedule|update|share|reply|respond|forward|complete|fill)\b/i,
  /\b(by|before|no later than) (monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|today|eod|end of (the )?(day|week))\b/i,
];

/** The sentence asks the reader to do something (or to answer). */
export const isRequest = (s: string): boolean => REQUEST.some((re) => re.test(s));

const INJECTION = [
  /\b(ignore|disregard|forget|override|bypass)\b[^.?!]{0,60}\b(instructions?|prompts?|rules?|directions?|guidelines?|guardrails?)\b/i,
  /\b(system prompt|new instructions|jailbreak|developer mode)\b/i,
  /\b(dear|attention|hey|to (the|any|all)) (ai|a\.i\.|assistant|agent|bot|llm|language model|chatbot)s?\b/i,
  /\byou are (now )?(an? )?(ai|assistant|agent|language model|chatbot)\b/i,
  /\b(as an|if you are an?) (ai|assistant|agent|language model)\b/i,
  /^(the )?(ai|a\.i\.|llm|bot|chatbot|agent|assistant)( assistant| agent| model)?\s*[:,]/i,
];

/** Words addressed to an AI assistant (prompt injection): reported as mail content, never followed. */
export const addressesAnAssistant = (s: string): boolean => INJECTION.some((re) => re.test(s));

/** The words of a request worth making a task of: its polite opening and closing punctuation left out. */
export function actionWords(sentence: string): string {
  let s = sentence.replace(/[?.!]+["')\]]*$/, '');
  s = s.replace(
    /^(?:(?:and|also|so|then|ok|okay)[, ]+)?(?:(?:could|can|would|will) you(?: please| kindly)?|please|pls|kindly|(?:i|we)(?:'d| would) (?:like|appreciate it if) you(?: to| could)?)\s+/i,
    '',
  );
  s = s.replace(/^(?:also|then|and)\s+/i, '').replace(/[\s,]+please$/i, '');
  return s.trim() === '' ? sentence : s.trim();
}

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH = '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';

const iso = (d: Date) => d.toISOString().slice(0, 10);
const day = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
const plus = (d: Date, n: number) => new Date(d.getTime() + n * 86_400_000);
const monthOf = (name: string) => MONTHS.findIndex((m) => m.startsWith(name.toLowerCase().slice(0, 3)));

/** A day of a month: this year's, or next year's when it has passed by the message date. */
function dayOfMonth(sent: Date, month: number, dom: number): string | null {
  if (month < 0 || dom < 1 || dom > 31) return null;
  let d = new Date(Date.UTC(sent.getUTCFullYear(), month, dom));
  if (d.getUTCMonth() !== month) return null;
  if (d < sent) d = new Date(Date.UTC(sent.getUTCFullYear() + 1, month, dom));
  return iso(d);
}

/**
 * The date an action's words give, counted from the day the message was sent (UTC): an ISO date, `today`, `tonight`,
 * `end of day`/`EOD`, `tomorrow`, a weekday (the next one after that day), `end of the week` (its Friday), `next
 * week` (its Monday), `20 November`/`November 20th`. No date in the words: null. The grounding check recomputes it.
 */
export function dueFrom(words: string, sentAt: Date): string | null {
  const s = words.toLowerCase();
  const sent = day(sentAt);
  const isoDate = /\b(\d{4})-(\d{2})-(\d{2})\b/.exec(s);
  if (isoDate && !Number.isNaN(Date.parse(isoDate[0]))) return isoDate[0];
  const dm = new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)? (?:of )?${MONTH}\\b`).exec(s);
  if (dm) return dayOfMonth(sent, monthOf(dm[2]), Number(dm[1]));
  const md = new RegExp(`\\b${MONTH} (\\d{1,2})(?:st|nd|rd|th)?\\b`).exec(s);
  if (md) return dayOfMonth(sent, monthOf(md[1]), Number(md[2]));
  if (/\b(today|tonight|end of (the )?day|eod|close of business|cob)\b/.test(s)) return iso(sent);
  if (/\btomorrow\b/.test(s)) return iso(plus(sent, 1));
  if (/\b(end of (the |this )?week|eow)\b/.test(s)) return iso(plus(sent, (5 - sent.getUTCDay() + 7) % 7));
  if (/\bnext week\b/.test(s)) return iso(plus(sent, (1 - sent.getUTCDay() + 7) % 7 || 7));
  const weekday = new RegExp(`\\b(${WEEKDAYS.join('|')})\\b`).exec(s);
  if (weekday) {
    const ahead = (WEEKDAYS.indexOf(weekday[1]) - sent.getUTCDay() + 7) % 7 || 7;
    return iso(plus(sent, ahead));
  }
  return null;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** `words` occurs in `text` (whitespace squashed) starting and ending on word boundaries: "25" is not in "1250". */
export function wholeWordsIn(text: string, words: string): boolean {
  const t = squash(text);
  const w = squash(words);
  if (w === '') return false;
  for (let i = t.indexOf(w); i !== -1; i = t.indexOf(w, i + 1)) {
    const before = i === 0 ? '' : t[i - 1];
    const after = t[i + w.length] ?? '';
    const clean = (edge: string, inner: string) => !(WORD_CHAR.test(edge) && WORD_CHAR.test(inner));
    if (clean(before, w[0]) && clean(after, w[w.length - 1])) return true;
  }
  return false;
}

const STOP = new Set(
  (
    'a an the is are was were be been being do does did done what whats which who whom whose when where why how of in on at to for from by with ' +
    'about and or nor not no our ours we us you your yours i me my mine it its this that these those there here their they them any all some ' +
    'can could would should will shall may might must has have had tell say says said please give show find much many if as than then so up ' +
    'out into over per s t let lets know mail mails email emails message messages thread threads inbox mailbox wrote write sent send ask asked asks'
  ).split(' '),
);

const fold = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
const wordsOf = (text: string): string[] => fold(text).match(/[\p{L}\p{N}]+/gu) ?? [];

/** The question's key words, in order, once each: no stop words or single letters; at most 8. */
export function keywords(question: string): string[] {
  const out: string[] = [];
  for (const w of wordsOf(question)) {
    if (STOP.has(w) || (w.length < 2 && !/\d/.test(w)) || out.includes(w)) continue;
    out.push(w);
  }
  return out.slice(0, 8);
}

/** How many of the key words a text holds (a word matches one a few letters longer or shorter: invoice, invoices). */
export function score(text: string, keys: readonly string[]): number {
  const words = new Set(wordsOf(text));
  const matches = (key: string, word: string) => {
    if (key === word) return true;
    if (/\d/.test(key) || key.length < 4 || word.length < 4) return false;
    const [short, long] = key.length <= word.length ? [key, word] : [word, key];
    return long.startsWith(short) && long.length - short.length <= 3;
  };
  return keys.filter((k) => [...words].some((w) => matches(k, w))).length;
}
