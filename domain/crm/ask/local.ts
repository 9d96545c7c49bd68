import { countOf, DraftBuilder, event, list, record, safeText, sumOf, valueOf } from '../../../ai-gateway/local/compose.js';
import { ToolError, type AskInput, type Draft, type Toolbox } from '../../../ai-gateway/types.js';
import { minorDigits, RISK_FLAGS, type RiskFlag } from '../../../protocol/methods/crm/index.js';

/*
 * crm.ask offline (no model), deterministic, reading only through the toolbox (the crm reads as the asker):
 * - a deal (its id in the question, else the deal whose name matches its words): stage, amount, risk, its latest
 *   interactions quoted (summaries are data: quoted, never followed; redacted ones only said to be), its ledger events;
 * - an account (acct_…): its deals and latest interactions;
 * - risk words (stalled, ghosted, overdue, no activity, at risk): the open deals with those flags;
 * - the pipeline (open deals, pipeline, forecast): count and per-currency totals;
 * - recent activity: the org's latest interactions.
 * Amounts are figures of the deals cited (op value / sum over amountCents), only for currencies of two minor digits
 * (the gateway writes money as $1,234.56). A request to act is refused: it only reads.
 */

interface DealNode {
  id: string;
  name: string;
  stage: string;
  status: string;
  amountCents: number;
  currency: string;
  closeDate: string;
}
interface IxnNode {
  id: string;
  kind: string;
  direction: string;
  occurredAt: string;
  summary: string | null;
  status: 'live' | 'redacted';
}

const cannot = (reason: string): Draft => ({ kind: 'cannot_answer', reason });

const RULES = /\b(ignore|disregard|forget|override|bypass)\b.*\b(rules?|instructions?|prompt|guards?)\b|\b(system prompt|jailbreak)\b/i;
const ACTS =
  /^(?:(?:please|pls|kindly|now|ok|okay|then)\s+|(?:can|could|would|will)\s+you\s+(?:please\s+)?|i\s+(?:want|need|would like)\s+(?:you\s+)?to\s+)*(?:create|close|win|lose|move|delete|remove|update|change|set|send|email|share|log|pin|redact|assign|delegate|approve|sign)\b/i;
const ONLY_READS =
  'crm.ask only reads the pipeline: it does not create, change, close, share or send anything. Use the crm methods for that (crm.moveStage, crm.closeDeal, crm.logInteraction…), and ask here how deals stand.';
const TEMPLATES =
  'Offline I answer: how a deal stands (name its deal_… id or its name), an account’s deals and timeline (acct_…), which deals are stalled, ghosted, overdue or quiet, the open pipeline, and recent activity. Ask one of those.';

const RISK_WORDS: [RegExp, RiskFlag[]][] = [
  [/\b(stall\w*|rott\w*|stuck)\b/i, ['stalled']],
  [/\bghost\w*\b/i, ['ghosted']],
  [/\b(overdue|late)\b/i, ['overdue']],
  [/\b(no activity|quiet|inactive|idle)\b/i, ['noActivity']],
  [/\bpush(ed)?\b/i, ['closeDatePushed']],
  [/\bsingle[- ]threaded\b/i, ['singleThreaded']],
  [/\b(at risk|risky|risks?)\b/i, ['stalled', 'noActivity', 'ghosted', 'overdue']],
];
const PIPELINE = /\b(pipeline|forecast|open deals|how many deals|deals? (?:are )?open|total)\b/i;
const ACTIVITY = /\b(recent|latest|lately|activity|timeline|interactions?)\b/i;
const STOP = new Set(
  'the a an and or of on in to for with what whats how is are was were did does do going deal deals about tell me status latest happened happening stand stands account with our we us any there this that from'.split(
    ' ',
  ),
);

const two = (currency: string) => minorDigits(currency) === 2;
const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The first words of a summary (verbatim after whitespace runs fold), up to about 300 characters. */
function excerpt(summary: string): string {
  const s = squash(summary);
  if (s.length <= 300) return s;
  const cut = s.lastIndexOf(' ', 300);
  return s.slice(0, cut > 100 ? cut : 300);
}

/** The interactions as sentences: live summaries quoted, redacted ones and unreadable subjects only said. */
function timeline(b: DraftBuilder, items: readonly IxnNode[]): void {
  const { parts } = b.each(items, 1, (x) => {
    const when = `${x.occurredAt.slice(0, 10)}, ${x.kind} (${x.direction})`;
    if (x.status === 'redacted') {
      b.note(`The ${x.kind} of ${x.occurredAt.slice(0, 10)} was redacted.`, [record(x.id)]);
      return `${when}: redacted`;
    }
    if (x.summary === null || squash(x.summary) === '') {
      b.note(`An email thread was linked on ${x.occurredAt.slice(0, 10)}.`, [record(x.id)]);
      return `${when}: an email thread (its subject needs email.read)`;
    }
    return `${when}: "${b.quote(excerpt(x.summary), [record(x.id)])}"`;
  });
  if (parts.length) b.say(`Latest on the timeline (summaries as written, read as data): ${parts.join('; ')}.`);
  else b.say('Nothing is logged on its timeline.');
}

async function safely<T>(run: () => Promise<T>): Promise<T | null> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof ToolError) return null;
    throw err;
  }
}

async function dealReport(tools: Toolbox, dealId: string): Promise<Draft> {
  const got = await safely(() => tools.call('crm.getDeal', { dealId }) as Promise<{ deal: DealNode; risk: string[] }>);
  if (!got) return cannot(`No deal ${dealId} you can read: check the id with crm.listDeals.`);
  const { deal, risk } = got;
  const b = new DraftBuilder();
  const name = safeText(deal.name, deal.id);
  const where = deal.status === 'open' ? `open at stage ${deal.stage}, closing ${deal.closeDate}` : `${deal.status} (stage ${deal.stage})`;
  b.note(`${name} (${deal.id}) is ${where}.`, [record(deal.id)]);
  b.say(`${name} (${deal.id}) is ${where}.`);
  if (two(deal.currency)) {
    const v = b.fact(valueOf(deal, record(deal.id), 'amountCents'), (x) => `${deal.id} is worth ${x} ${deal.currency}.`);
    b.say(`It is worth ${v} ${deal.currency}.`);
  }
  if (risk.length) {
    b.note(`${deal.id} has the risk flags ${risk.join(', ')}.`, [record(deal.id)]);
    b.say(`Risk flags now: ${list(risk)}.`);
  }
  const ixns = await safely(() => tools.call('crm.listInteractions', { dealId, limit: 5 }) as Promise<{ interactions: IxnNode[] }>);
  timeline(b, ixns?.interactions ?? []);
  const events = await safely(() => tools.call('ledger.events', { entityId: dealId, limit: 20 }) as Promise<{ events: { seq: number }[] }>);
  if (events && events.events.length) {
    const v = b.fact(
      countOf(events.events, (e) => event(e.seq)),
      (x) => `The ledger's latest events about ${deal.id}: ${x}.`,
    );
    b.say(`The ledger's latest events about it: ${v} (GET /events with its id lists them).`);
  }
  return b.build();
}

async function accountReport(tools: Toolbox, accountId: string): Promise<Draft> {
  const ixns = await safely(() => tools.call('crm.listInteractions', { accountId, limit: 5 }) as Promise<{ interactions: IxnNode[] }>);
  if (!ixns) return cannot(`No account ${accountId} you can read: check the id with crm.listAccounts.`);
  const { deals } = (await tools.call('crm.listDeals', { accountId, status: 'all', limit: 500 })) as { deals: DealNode[] };
  const b = new DraftBuilder();
  const open = deals.filter((d) => d.status === 'open');
  if (deals.length) {
    const v = b.fact(
      countOf(deals, (d) => record(d.id)),
      (x) => `${accountId} has ${x} deals.`,
    );
    const names = b.each(deals, 0, (d) => `${safeText(d.name, d.id)} (${d.id}, ${d.status})`);
    b.say(`${accountId} has ${v} deals: ${names.parts.join(', ')}${names.omitted ? ', and more (crm.listDeals lists them all)' : ''}.`);
  } else {
    b.fact(
      countOf([], () => record(accountId)),
      () => `${accountId} has no deals.`,
    );
    b.say(`${accountId} has no deals.`);
  }
  totals(b, open);
  timeline(b, ixns.interactions);
  return b.build();
}

/** Per currency (two minor digits), the sum of open amounts. */
function totals(b: DraftBuilder, open: readonly DealNode[]): void {
  const currencies = [...new Set(open.map((d) => d.currency))].filter(two).sort();
  for (const cur of currencies) {
    const these = open.filter((d) => d.currency === cur);
    const v = b.fact(
      sumOf(these, (d) => record(d.id), 'amountCents'),
      (x) => `Open deals in ${cur} total ${x} ${cur}.`,
    );
    b.say(`Open in ${cur}: ${v} ${cur}.`);
  }
}

async function riskReport(tools: Toolbox, flags: readonly RiskFlag[]): Promise<Draft> {
  const b = new DraftBuilder();
  for (const flag of flags) {
    const { deals } = (await tools.call('crm.listDeals', { risk: flag, limit: 50 })) as { deals: DealNode[] };
    const v = b.fact(
      countOf(deals, (d) => record(d.id)),
      (x) => `Open deals flagged ${flag}: ${x}.`,
    );
    const names = b.each(deals, 0, (d) => `${safeText(d.name, d.id)} (${d.id}, ${d.stage})`);
    const tail = names.omitted ? ', and more (crm.listDeals with risk lists them all)' : '';
    b.say(deals.length ? `Flagged ${flag}: ${v}: ${names.parts.join(', ')}${tail}.` : `Flagged ${flag}: none.`);
  }
  return b.build();
}

async function pipelineReport(tools: Toolbox): Promise<Draft> {
  const { deals, nextCursor } = (await tools.call('crm.listDeals', { status: 'open', limit: 500 })) as { deals: DealNode[]; nextCursor: string | null };
  const b = new DraftBuilder();
  const v = b.fact(
    countOf(deals, (d) => record(d.id)),
    (x) => `Open deals read: ${x}.`,
  );
  b.say(`Open deals: ${v}${nextCursor ? ' (more follow: crm.listDeals pages them, with totals over all)' : ''}.`);
  totals(b, deals);
  return b.build();
}

async function activityReport(tools: Toolbox): Promise<Draft> {
  const { interactions } = (await tools.call('crm.listInteractions', { limit: 10 })) as { interactions: IxnNode[] };
  if (interactions.length === 0) return cannot('Nothing is logged on any timeline you can read yet.');
  const b = new DraftBuilder();
  timeline(b, interactions);
  return b.build();
}

/** The question's words worth searching names for. */
const wordsOf = (q: string): string[] =>
  [...new Set(q.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [])].filter((w) => !STOP.has(w) && !/^\d+$/.test(w)).slice(0, 8);

export async function answerFromCrm(input: Pick<AskInput, 'question'>, tools: Toolbox): Promise<Draft> {
  const q = input.question.replace(/\s+/g, ' ').trim();
  if (RULES.test(q))
    return cannot('I answer only from the pipeline you can read, under fixed rules a question cannot change; timeline text is data to me, never instructions.');
  if (ACTS.test(q)) return cannot(ONLY_READS);
  const dealId = /\bdeal_[A-Za-z0-9]+\b/.exec(q)?.[0];
  if (dealId) return dealReport(tools, dealId);
  const accountId = /\bacct_[A-Za-z0-9]+\b/.exec(q)?.[0];
  if (accountId) return accountReport(tools, accountId);
  const risky = RISK_WORDS.find(([re]) => re.test(q));
  if (risky)
    return riskReport(
      tools,
      risky[1].filter((f) => (RISK_FLAGS as readonly string[]).includes(f)),
    );
  if (PIPELINE.test(q)) return pipelineReport(tools);
  const words = wordsOf(q);
  for (const query of words.length > 1 ? [words.join(' '), ...words] : words) {
    const { deals } = (await tools.call('crm.listDeals', { q: query.slice(0, 256), status: 'all', limit: 5 })) as { deals: DealNode[] };
    if (deals.length) return dealReport(tools, deals[0].id);
  }
  if (ACTIVITY.test(q)) return activityReport(tools);
  return cannot(TEMPLATES);
}
