import { badRequest } from '../../protocol/errors.js';
import { emailReads as c } from '../../protocol/methods/email/reads.js';
import { defineSearch } from '../../db/search.js';
import { decodeCursor, encodeCursor, timeAndId } from '../core/cursor.js';
import { handler } from '../core/handler.js';
import { mailboxAccess, MY_MAILBOXES_SQL } from './access.js';
import { MESSAGE_COLUMNS, messageLines, type MessageRow } from './model.js';

/*
 * email.messages: a search box. Gmail's operators (from: subject: has:attachment is:unread before: …) become
 * conditions; the remaining words go to db/search.ts (the subject ranks above the sender and the text, 054_email.sql
 * declares the same columns), ranked among the newest 2,000 matches as chat search is. No words: newest first.
 * Query text never reaches the ledger (R methods append nothing).
 */

export const SEARCH_CANDIDATES = 2_000;

export const emailSearch = defineSearch({
  table: 'email_messages',
  id: 'message_id',
  weights: { A: ['subject'], B: ['from_name', 'from_address', 'text'] },
  fuzzy: [],
  recent: { column: 'sort_at', candidates: SEARCH_CANDIDATES, day: 'search_day' },
});

export interface ParsedQuery {
  words: string;
  from: string[];
  to: string[];
  subject: string[];
  in: string[];
  hasAttachment: boolean;
  read?: boolean;
  before?: string;
  after?: string;
}

const TOKEN = /(-?)([a-z]+):(?:"([^"]*)"|(\S+))|"[^"]*"|\S+/gi;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Operators out of the query text; anything else (unknown operators too) stays words. */
export function parseQuery(text: string): ParsedQuery {
  const out: ParsedQuery = { words: '', from: [], to: [], subject: [], in: [], hasAttachment: false };
  const words: string[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const [whole, negated, op, quoted, bare] = m;
    const value = (quoted ?? bare ?? '').trim();
    const name = op?.toLowerCase();
    if (!name || negated || value === '') {
      words.push(whole);
      continue;
    }
    if (name === 'from' || name === 'to' || name === 'subject' || name === 'in') out[name].push(value.slice(0, 200));
    else if (name === 'has' && value.toLowerCase() === 'attachment') out.hasAttachment = true;
    else if (name === 'is' && ['read', 'unread'].includes(value.toLowerCase())) out.read = value.toLowerCase() === 'read';
    else if (name === 'before' || name === 'after') {
      if (!DATE.test(value) || Number.isNaN(Date.parse(value)))
        throw badRequest('query', `${name}: takes a date YYYY-MM-DD, not ${JSON.stringify(value.slice(0, 40))}`);
      out[name] = value;
    } else words.push(whole);
  }
  out.words = words.join(' ').trim();
  return out;
}

const like = (v: string) => `%${v.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;

/** The query's conditions on the messages table (columns qualified by `t`), binding through `param`. */
function conditions(t: string, parsed: ParsedQuery, scope: string, me: string, param: (v: unknown) => string): string[] {
  const out = [`${t}.mailbox_id IN ${scope}`, `${t}.state <> 'discarded'`];
  for (const f of parsed.from) {
    const v = param(like(f));
    out.push(`(${t}.from_address ILIKE ${v} OR ${t}.from_name ILIKE ${v})`);
  }
  for (const f of parsed.to) out.push(`(${t}.to_addresses::text ILIKE ${param(like(f))} OR ${t}.cc_addresses::text ILIKE ${param(like(f))})`);
  for (const f of parsed.subject) out.push(`${t}.subject ILIKE ${param(like(f))}`);
  for (const f of parsed.in) {
    out.push(`${t}.folder_id IN (SELECT f.folder_id FROM email_folders f WHERE f.org_id = ${t}.org_id AND lower(f.path) = lower(${param(f)}))`);
  }
  if (parsed.hasAttachment) out.push(`${t}.has_attachments`);
  if (parsed.read !== undefined) {
    const read = `EXISTS (SELECT 1 FROM email_message_reads r WHERE r.org_id = ${t}.org_id AND r.principal_id = ${param(me)} AND r.message_id = ${t}.message_id)`;
    out.push(`${t}.state = 'received'`, parsed.read ? read : `NOT ${read}`);
  }
  if (parsed.before) out.push(`${t}.sort_at < ${param(parsed.before)}::date`);
  if (parsed.after) out.push(`${t}.sort_at >= ${param(parsed.after)}::date`);
  return out;
}

export const messages = handler(c.messages, async (ctx, p) => {
  const me = ctx.principal.id;
  if (p.mailboxId !== undefined) await mailboxAccess(ctx.q, ctx.orgId, p.mailboxId, me);
  const parsed = parseQuery(p.query);
  let rows: MessageRow[];
  let nextCursor: string | null;
  if (parsed.words !== '') {
    // Its own short transaction: the search's settings are transaction-local (db/search.ts).
    const page = await ctx.deps.db.tx((q) =>
      emailSearch.search(q, {
        org: ctx.orgId,
        q: parsed.words,
        limit: p.limit,
        cursor: p.cursor,
        fields: { q: 'query', cursor: 'cursor' },
        where: (param) => {
          const scope = p.mailboxId !== undefined ? `(${param(p.mailboxId)})` : MY_MAILBOXES_SQL(param(ctx.orgId), param(me));
          return conditions('email_messages', parsed, scope, me, param).join(' AND ');
        },
      }),
    );
    const ids = page.items.map((h) => h.id);
    const found = await ctx.q.query<MessageRow>(`SELECT ${MESSAGE_COLUMNS} FROM email_messages m WHERE m.org_id = $1 AND m.message_id = ANY($2::text[])`, [
      ctx.orgId,
      ids,
    ]);
    const byId = new Map(found.map((r) => [r.message_id, r]));
    rows = ids.flatMap((id) => byId.get(id) ?? []);
    nextCursor = page.nextCursor;
  } else {
    const params: unknown[] = [ctx.orgId];
    const param = (v: unknown) => `$${params.push(v)}`;
    const scope = p.mailboxId !== undefined ? `(${param(p.mailboxId)})` : MY_MAILBOXES_SQL('$1', param(me));
    const where = ['m.org_id = $1', ...conditions('m', parsed, scope, me, param)];
    if (p.cursor !== undefined) {
      const [at, id] = decodeCursor<[string, string]>(p.cursor, 'cursor', timeAndId);
      where.push(`(m.sort_at, m.message_id) < (${param(at)}::timestamptz, ${param(id)})`);
    }
    const found = await ctx.q.query<MessageRow>(
      `SELECT ${MESSAGE_COLUMNS} FROM email_messages m WHERE ${where.join(' AND ')} ORDER BY m.sort_at DESC, m.message_id DESC LIMIT ${param(p.limit + 1)}`,
      params,
    );
    rows = found.slice(0, p.limit);
    const last = rows[rows.length - 1];
    nextCursor = found.length > p.limit && last ? encodeCursor([last.sort_at, last.message_id]) : null;
  }
  return { messages: await messageLines(ctx.q, ctx.orgId, rows, me), nextCursor };
});
