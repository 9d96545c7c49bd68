import { rewriteText, type RewriteOutcome } from '../../ai-gateway/media.js';
import { branding as c } from '../../protocol/methods/branding/index.js';
import { handler } from '../core/handler.js';
import { gatewayCall } from './assets.js';
import { designHead } from './design-log.js';
import { voicePrompt } from './foundation.js';
import { foundationAt, heads, type Doc } from './model.js';

/*
 * branding.rewriteInVoice: a text in the brand's voice. The rule-based rewrite puts each avoided term of a voice
 * rule to its preferred wording (or drops it), never inside a protected span: figures, dates, URLs, e-mail
 * addresses, @mentions and ids. A model's draft must keep every protected span exactly, add none, and use no avoided
 * term; else it is refused (audited as ungrounded) and the rule-based rewrite answers. The event holds counts, the
 * status and the audit seq; never the text.
 */

type Rule = Doc['voice']['rules'][number];
export interface Change {
  ruleId: string;
  before: string;
  after: string;
}

/** URLs, e-mails, @mentions, ids (inv_…), and anything with a digit: figures, money, dates, times. */
const PROTECTED =
  /https?:\/\/[^\s<>"')]+|www\.[^\s<>"')]+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|@[\p{L}\p{N}_][\p{L}\p{N}_.-]*|\b[a-z]{2,5}_[A-Za-z0-9]{4,}\b|[$€£¥]?\d(?:[\d,.:/-]*\d)?%?/gu;

export function protectedSpans(text: string): { start: number; end: number; value: string }[] {
  return [...text.matchAll(PROTECTED)].map((m) => {
    const value = m[0].replace(/[.,;:]+$/, '');
    return { start: m.index, end: m.index + value.length, value };
  });
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const termPattern = (term: string) => new RegExp(`(?<![\\p{L}\\p{N}_])${escape(term)}(?![\\p{L}\\p{N}_])`, 'giu');

function inCase(like: string, word: string): string {
  if (word === '') return word;
  if (like.length > 1 && like === like.toUpperCase() && like !== like.toLowerCase()) return word.toUpperCase();
  if (like[0] === like[0].toUpperCase() && like[0] !== like[0].toLowerCase()) return word[0].toUpperCase() + word.slice(1);
  return word;
}

/** At most maxChars: cut at the last sentence end that fits, else at a space, with an ellipsis. */
export function fit(text: string, maxChars: number | undefined): string {
  if (maxChars === undefined || text.length <= maxChars) return text;
  const head = text.slice(0, maxChars);
  const sentence = Math.max(head.lastIndexOf('. '), head.lastIndexOf('! '), head.lastIndexOf('? '));
  if (sentence > maxChars / 2) return head.slice(0, sentence + 1);
  const space = text.slice(0, maxChars - 1).lastIndexOf(' ');
  return `${text.slice(0, space > 0 ? space : maxChars - 1).trimEnd()}…`;
}

/** The rule-based rewrite: each avoided term (outside protected spans) to its rule's preferred wording. */
export function rewriteByRules(text: string, rules: readonly Rule[], maxChars?: number): { text: string; changes: Change[] } {
  const spans = protectedSpans(text);
  const hits: { start: number; end: number; rule: Rule; before: string }[] = [];
  for (const rule of rules) {
    for (const term of rule.avoid) {
      for (const m of text.matchAll(termPattern(term))) {
        const [start, end] = [m.index, m.index + m[0].length];
        const clash = [...spans, ...hits].some((s) => start < s.end && s.start < end);
        if (!clash) hits.push({ start, end, rule, before: m[0] });
      }
    }
  }
  hits.sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  const changes: Change[] = [];
  for (const h of hits) {
    const after = inCase(h.before, h.rule.prefer ?? '');
    let piece = text.slice(at, h.start);
    // A dropped term takes one space with it.
    if (after === '' && piece.endsWith(' ')) piece = piece.slice(0, -1);
    out += piece + after;
    at = h.end;
    if (!changes.some((x) => x.ruleId === h.rule.id && x.before === h.before && x.after === after))
      changes.push({ ruleId: h.rule.id, before: h.before, after });
  }
  out += text.slice(at);
  return { text: fit(out.replace(/ {2,}/g, ' '), maxChars), changes };
}

/** Why a model's draft may not answer (undefined: it may). */
export function draftProblem(input: string, draft: string, rules: readonly Rule[], maxChars?: number): string | undefined {
  const count = (xs: string[]) => xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>());
  const had = count(protectedSpans(input).map((s) => s.value));
  const has = count(protectedSpans(draft).map((s) => s.value));
  for (const [v, n] of had) if ((has.get(v) ?? 0) < n) return `it alters or drops "${v}" (figures, dates, URLs, mentions and ids are kept exactly)`;
  for (const v of has.keys()) if (!had.has(v)) return `it adds "${v}", which the text does not have`;
  for (const rule of rules) for (const term of rule.avoid) if (termPattern(term).test(draft)) return `it keeps "${term}", which rule ${rule.id} avoids`;
  if (maxChars !== undefined && draft.length > maxChars) return `it is ${draft.length} characters, above maxChars ${maxChars}`;
  return undefined;
}

function instructions(doc: Doc, channel: string, maxChars: number | undefined): string {
  const examples = doc.voice.examples.filter((e) => e.channel === channel);
  return [
    voicePrompt({ ...doc, voice: { ...doc.voice, examples: examples.length ? examples : doc.voice.examples } }),
    '',
    `Rewrite the user's text for ${channel} in this voice. Keep every figure, amount, date, time, URL, e-mail address, @mention and id exactly as written; add none.`,
    `Never use a term a rule avoids.${maxChars ? ` At most ${maxChars} characters.` : ''} Answer with the rewritten text only.`,
  ].join('\n');
}

interface Prepared {
  version: number;
  outcome: RewriteOutcome;
  changes: Change[];
}

export const rewriteInVoice = handler(
  c.rewriteInVoice,
  async (ctx, p, prepared: Prepared) => {
    const { outcome: o } = prepared;
    const status = o.source === 'model' ? 'model' : o.refusal ? 'fallback' : 'rules';
    await ctx.emit('branding.voice.rewrite', o.audit.id, {
      auditSeq: o.audit.seq,
      status,
      provider: o.provider,
      charsIn: p.text.length,
      charsOut: o.text.length,
      changes: prepared.changes.length,
      version: prepared.version,
      designHead: await designHead(ctx.q, ctx.orgId),
    });
    return { text: o.text, changes: prepared.changes, source: o.source, refusal: o.refusal, auditSeq: o.audit.seq, version: prepared.version };
  },
  {
    prepare: async (ctx, p): Promise<Prepared> => {
      const f = await foundationAt(ctx.db, ctx.orgId, (await heads(ctx.db, ctx.orgId)).foundationVersion);
      const rules = f.doc.voice.rules;
      const local = rewriteByRules(p.text, rules, p.maxChars);
      const outcome = await rewriteText(
        { db: ctx.deps.db, ...ctx.deps.ai },
        {
          ...gatewayCall(ctx),
          instructions: instructions(f.doc, p.channel, p.maxChars),
          text: p.text,
          check: (draft) => draftProblem(p.text, draft, rules, p.maxChars),
          local: () => local.text,
        },
      );
      // A model's accepted draft: what it changed, as far as the rules tell (each avoided term of the text, now gone).
      const changes =
        outcome.source === 'rules'
          ? local.changes
          : local.changes.map((ch) => ({ ...ch, after: ch.after !== '' && outcome.text.includes(ch.after) ? ch.after : '' }));
      return { version: f.version, outcome, changes };
    },
  },
);
