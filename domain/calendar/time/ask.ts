import { badRequest } from '../../../protocol/errors.js';
import { CALENDAR_ASK_NOTICE, calendarTime as c, MAX_ASK_DAYS } from '../../../protocol/methods/calendar/time.js';
import { askAsCaller } from '../../core/ask.js';
import { handler } from '../../core/handler.js';
import { workingHoursOf } from '../../people/index.js';
import { CALENDAR_ASK_METHOD, CALENDAR_READS } from './answerer.js';
import { knownZone } from './hours.js';
import { askerQuestion, askReads } from './reads.js';

/*
 * calendar.ask (R on calendar.read): the AI gateway answers with the calendar answerer (answerer.ts) from the calendar
 * reads run as the caller, so others' private events are busy blocks only; audited in the org's AI audit chain (the
 * question's hash, the reads, the verdict), no ledger event. An R call holds no transaction, so the model is called
 * in run, as files.ask and email.ask do. A spent budget is RATE_LIMITED.
 */

const DAY = 86_400_000;

export const ask = handler(c.ask, async (ctx, p) => {
  if ((p.from === undefined) !== (p.to === undefined)) throw badRequest(p.from === undefined ? 'from' : 'to', 'give from and to together, or neither');
  let period: { from: string; to: string } | null = null;
  if (p.from !== undefined && p.to !== undefined) {
    const from = Date.parse(p.from);
    const to = Date.parse(p.to);
    if (to <= from) throw badRequest('to', 'must be after from');
    if (to - from > MAX_ASK_DAYS * DAY) throw badRequest('to', `at most ${MAX_ASK_DAYS} days after from`);
    period = { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
  }
  const me = (await workingHoursOf(ctx.q, ctx.orgId, [ctx.principal.id])).get(ctx.principal.id);
  const timeZone = me?.timezone && knownZone(me.timezone) ? me.timezone : 'UTC';
  const question = askerQuestion(p.question, { id: ctx.principal.id, timeZone, from: period?.from ?? null, to: period?.to ?? null });
  const readAs = askReads((method, params) => ctx.readAs(method, params), timeZone);
  const outcome = await askAsCaller(ctx, { method: CALENDAR_ASK_METHOD, question, readAs });
  return {
    status: outcome.status,
    answer: outcome.answer,
    claims: outcome.claims.map((claim) => ({
      text: claim.text,
      cites: claim.cites.flatMap((x) => (x.kind === 'record' ? [x.id] : [])),
    })),
    reason: outcome.reason,
    notice: CALENDAR_ASK_NOTICE,
    actOnWith: outcome.reads.length ? outcome.reads : CALENDAR_READS,
    provider: outcome.provider,
    model: outcome.model,
    auditSeq: outcome.audit.seq,
  };
});
