/*
 * What a directory question asks, for the offline answerer: who in the company knows a party, who we know at an
 * organisation, how to reach a party, how many; or a request to act (merge, delete, send…), to break the rules or
 * to see internals, which it refuses. Patterns over the question as written (names keep their capitals).
 */

export type Guard = 'act' | 'rules' | 'internals';

export type Intent =
  | { kind: 'guard'; guard: Guard }
  | { kind: 'knows'; name: string }
  | { kind: 'at'; name: string }
  | { kind: 'reach'; name: string }
  | { kind: 'count'; what: 'person' | 'org' | 'any'; at: string | null }
  | { kind: 'unknown' };

/** The question without surrounding quotes, trailing punctuation and repeated spaces. */
export const tidy = (question: string): string =>
  question
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^["'“‘]+|["'”’]+$/g, '')
    .replace(/[?.!\s]+$/g, '')
    .trim();

/** A name as asked, for comparison: no accents, case, punctuation or repeated spaces. */
export const foldName = (name: string): string =>
  name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}@.+]+/gu, ' ')
    .trim();

const RULES =
  /\b(ignore|disregard|forget|override|bypass)\b.*\b(rules?|instructions?|prompt|guards?|polic(y|ies))\b|\b(system prompt|your instructions|jailbreak|pretend (to be|you are)|act as|role-?play)\b/i;
const INTERNALS = /\b(sql|database|db schema|schemas?|passwords?|api keys?|secrets?|access tokens?|credentials?)\b/i;
/** Acts a read-only answerer never does, wherever they appear. */
const ACT_WORDS = /\b(merge|unmerge|combine|de-?dupe|deduplicate|delete|erase|archive|unarchive|restore|export|share|import|forget)\b/i;
const POLITE =
  /^(?:(?:please|pls|kindly|now|ok|okay|then)\s+|(?:can|could|would|will)\s+you\s+(?:please\s+)?|i\s+(?:want|need|would like)\s+(?:you\s+)?to\s+|go ahead and\s+)*/i;
/** A question starting with one of these (after please, can you…) asks for an act. */
const ACT_VERBS = new Set([
  'add',
  'create',
  'make',
  'update',
  'change',
  'rename',
  'edit',
  'set',
  'mark',
  'tag',
  'untag',
  'send',
  'email',
  'e-mail',
  'mail',
  'message',
  'text',
  'sms',
  'call',
  'ring',
  'phone',
  'link',
  'unlink',
  'introduce',
  'approve',
  'invite',
  'block',
  'move',
  'assign',
  'write',
  'fix',
  'correct',
  'remove',
  'record',
  'save',
]);
/** "email address of", "phone number for": a lookup, not an act. */
const LOOKUP_AFTER_VERB = /^(address|addresses|number|numbers|details|of|for|id)\b/i;

const KNOWS = [
  /^(?:so\s+)?who(?:\s+(?:in the company|in the org|on the team|here|of us|else|already|personally|\w+)){0,4}?\s+(?:knows?|has met|have met|met|is close to|are close to|works? with|worked with|is in touch with|has a relationship with)\s+(.+)$/i,
  /^(?:does|do) (?:anyone|anybody|someone|any of us|we)(?: here| in the company)? know\s+(.+)$/i,
];
const AT = [
  /^who\s+(?:do|does|did)\s+(?:we|i|you|the company|anyone|anybody)\s+know\s+(?:at|from|in)\s+(.+)$/i,
  /^(?:who|which people|which contacts|what people|what contacts|which persons)\s+(?:works?|is working|are working|do we have|do we know)\s+(?:at|for|in|from)\s+(.+)$/i,
  /^(?:list\s+|show\s+)?(?:the\s+)?(?:people|contacts|persons|staff|employees)\s+(?:we know\s+)?(?:at|from|of|in)\s+(.+)$/i,
  /^who(?:'s| is| are)\s+(?:at|from)\s+(.+)$/i,
];
const REACH = [
  /^how\s+(?:do|can|could|should|would|might|to)\s+(?:i\s+|we\s+|you\s+|one\s+|someone\s+)?(?:reach|contact|get\s+(?:in\s+touch\s+with|hold\s+of)|email|e-mail|call|phone|ring|message|text)\s+(.+)$/i,
  /^(?:what(?:'s| is| are)\s+)?(?:the\s+)?(?:email|e-mail|phone|mobile|number|phone number|email address|contact details?|details)(?:\s+(?:address|number|details))?\s+(?:of|for)\s+(.+)$/i,
  /^what(?:'s| is| are)\s+(.+?)(?:'s|’s|s'|s’)\s+(?:email|e-mail|phone|mobile|number|contact details|details)(?:\s+(?:address|number))?$/i,
];
const COUNT = /^how many\s+(people|persons|contacts|organisations|organizations|orgs|companies|parties)\b(.*)$/i;
const COUNT_AT = /\b(?:at|in|from|working at|work at|works at|employed (?:at|by))\s+(.+)$/i;

/** A name asked about, without "the" or a trailing "now", "today", "in the directory". */
function nameFrom(raw: string): string | null {
  const name = raw
    .replace(/\s+(?:now|today|currently|at the moment|in the directory|in our directory|here)$/i, '')
    .replace(/^(?:the|a|an)\s+(?=\p{Lu})/u, '')
    .replace(/^["'“‘]+|["'”’]+$/g, '')
    .trim();
  return /[\p{L}\p{N}]/u.test(name) ? name : null;
}

export function classify(question: string): Intent {
  const q = tidy(question);
  if (RULES.test(q)) return { kind: 'guard', guard: 'rules' };
  if (INTERNALS.test(q)) return { kind: 'guard', guard: 'internals' };
  if (ACT_WORDS.test(q)) return { kind: 'guard', guard: 'act' };
  const bare = q.replace(POLITE, '');
  const [first = '', ...rest] = bare.split(' ');
  if (ACT_VERBS.has(first.toLowerCase()) && !LOOKUP_AFTER_VERB.test(rest.join(' '))) return { kind: 'guard', guard: 'act' };
  const first3 = (patterns: RegExp[]) => {
    for (const re of patterns) {
      const m = re.exec(bare);
      const name = m ? nameFrom(m[1]) : null;
      if (name) return name;
    }
    return null;
  };
  const count = COUNT.exec(bare);
  if (count) {
    const noun = count[1].toLowerCase();
    const at = COUNT_AT.exec(count[2]);
    const what = /^(people|persons)$/.test(noun) ? 'person' : /^(contacts|parties)$/.test(noun) ? 'any' : 'org';
    return { kind: 'count', what, at: at ? nameFrom(at[1]) : null };
  }
  const at = first3(AT);
  if (at) return { kind: 'at', name: at };
  const knows = first3(KNOWS);
  if (knows) return { kind: 'knows', name: knows };
  const reach = first3(REACH);
  if (reach) return { kind: 'reach', name: reach };
  return { kind: 'unknown' };
}
