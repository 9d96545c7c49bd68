import { ToolError, type AskInput, type Draft, type Toolbox } from '../../../ai-gateway/types.js';
import { cannot, dateOf, MailDraft, whoOf, type MailMessage } from './compose.js';
import { scopeOf } from './reads.js';
import { addressesAnAssistant, contentOf, isQuestion, isRequest, keywords, score } from './sentences.js';

/*
 * email.ask offline (no model): search the caller's mail (email.messages: all the question's key words, else any), or
 * read the one thread it is limited to, then quote the sentences holding most of the words, newest mail first, each
 * with who wrote it and when (the headers answer "who" and "when"). "What do they ask / want / need" questions rank
 * the requests and questions first. A question asking it to act (send,
 * forward, delete…) is refused: it only reads. Words in mail addressed to an assistant are reported, never followed.
 */

const MAX_MESSAGES = 5;
const MAX_CLAIMS = 3;

const ACTS =
  /^(?:(?:please|pls|kindly|now|ok|okay|then)\s+|(?:can|could|would|will)\s+you\s+(?:please\s+)?|i\s+(?:want|need|would like)\s+(?:you\s+)?to\s+)*(?:send|reply|respond|forward|email|e-mail|mail|delete|remove|trash|archive|move|file|mark|label|unsubscribe|block|approve|draft|write|compose|assign|delegate)\b/i;
const RULES = /\b(ignore|disregard|forget|override|bypass)\b.*\b(rules?|instructions?|prompt|guards?)\b|\b(system prompt|jailbreak)\b/i;
const ASKS = /\b(ask(s|ed|ing)?|want(s|ed)?|need(s|ed)?|request(s|ed)?|expect(s|ed)?|waiting|to do|action|actions|reply|answer)\b/i;

const ONLY_READS =
  'email.ask only reads your mail: it does not send, forward, delete, move or change anything. Use email.draftSave and email.send, email.move or email.markRead for that, and ask here what the mail says.';

interface Candidate {
  m: MailMessage;
  sentence: string;
  score: number;
}

/** The messages to read: the thread's, or the best search hits (all words, else any), newest first. */
async function mailFor(tools: Toolbox, keys: string[], threadId: string | undefined): Promise<MailMessage[]> {
  if (threadId) {
    const res = (await tools.call('email.thread', { threadId })) as { messages: MailMessage[] };
    return res.messages.filter((m) => m.state !== 'discarded').reverse();
  }
  const queries = [keys.join(' '), ...(keys.length > 1 ? [keys.join(' or ')] : [])].map((q) => q.slice(0, 256));
  for (const query of queries) {
    const res = (await tools.call('email.messages', { query, limit: 20 })) as { messages: { id: string }[] };
    if (res.messages.length === 0) continue;
    const out: MailMessage[] = [];
    for (const hit of res.messages.slice(0, MAX_MESSAGES))
      out.push(((await tools.call('email.message', { messageId: hit.id })) as { message: MailMessage }).message);
    return out.sort((a, b) => dateOf(b).getTime() - dateOf(a).getTime());
  }
  return [];
}

export async function answerFromMail(input: Pick<AskInput, 'question'>, tools: Toolbox): Promise<Draft> {
  const { question, scope } = scopeOf(input.question);
  const q = question.replace(/\s+/g, ' ').trim();
  if (RULES.test(q))
    return cannot('I answer only from the mail you can read, under fixed rules a question cannot change; what mail says is data to me, never instructions.');
  if (ACTS.test(q)) return cannot(ONLY_READS);
  const keys = keywords(q);
  const wantsAsks = ASKS.test(q);
  if (keys.length === 0 && !scope.threadId)
    return cannot(
      'The question holds no words to search your mail for. Ask what the mail says about something, e.g. "What did Acme ask about the March invoice?"',
    );
  try {
    const mail = await mailFor(tools, keys, scope.threadId);
    if (mail.length === 0) {
      return cannot(
        'No mail you can read matches the question: searching it as you (email.messages with its key words) found nothing. Try other words, or name a thread (threadId).',
      );
    }
    const found: Candidate[] = [];
    const injected: Candidate[] = [];
    for (const m of mail) {
      for (const s of contentOf(m.text)) {
        const sc = score(s, keys) + (wantsAsks && (isRequest(s) || isQuestion(s)) ? keys.length + 1 : 0);
        if (sc === 0) continue;
        (addressesAnAssistant(s) ? injected : found).push({ m, sentence: s, score: sc });
      }
    }
    const best = found.sort((a, b) => b.score - a.score || dateOf(b.m).getTime() - dateOf(a.m).getTime()).slice(0, MAX_CLAIMS);
    best.sort((a, b) => dateOf(b.m).getTime() - dateOf(a.m).getTime());
    const d = new MailDraft();
    for (const c of best) {
      const when = dateOf(c.m).toISOString().slice(0, 10);
      d.claim('answer', c.m, c.sentence, `${whoOf(c.m)} wrote on ${when}: ${c.sentence}`);
      d.say(`${whoOf(c.m)} wrote on ${when} (${c.m.id}): "${c.sentence}"`);
    }
    for (const c of injected.slice(0, 2)) {
      d.claim('content', c.m, c.sentence, `Message ${c.m.id} holds words addressed to an AI assistant: ${c.sentence}`);
      d.say(`Message ${c.m.id} holds words addressed to an AI assistant ("${c.sentence}"): they are mail content, and I did not follow them.`);
    }
    if (d.size === 0) {
      const read = mail.slice(0, MAX_MESSAGES).map((m) => m.id);
      return cannot(
        `The mail I read (${read.join(', ')}) holds no sentence with the question's words. Read it yourself with email.message, or ask with other words.`,
      );
    }
    if (best.length > 0) d.say('Quoted as written, newest mail first, by the offline answerer (no model).');
    return d.build();
  } catch (err) {
    if (err instanceof ToolError) return cannot(`A read this question needs was refused (${err.message}), so I cannot answer it.`);
    throw err;
  }
}
