import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { z } from 'zod';
import { directory as c } from '../../protocol/methods/directory/index.js';
import { MAX_AGENT_EXPORT } from '../../protocol/methods/directory/vcard.js';
import { badRequest, notFound } from '../../protocol/errors.js';
import type { HandlerCtx } from '../core/handler.js';
import { handler } from '../core/handler.js';
import { mustHold } from '../people/index.js';
import { listScope } from './filters.js';
import { kindOf, noun, partyRows, resolveParty } from './model.js';
import { JCARD_MEDIA_TYPE, VCARD_MEDIA_TYPE, channelsOf, exportBody, partyCard } from './vcard-cards.js';

/*
 * directory.exportVcard (M on directory.read): one event per page, counts only. An agent exporting more than
 * MAX_AGENT_EXPORT parties, or a list, is held for a human (directory.export_vcard, retry completion). The
 * export's pages follow by a cursor signed with the server's key and bound to the export, its caller and a
 * day: an approved export pages on without another approval, and a cursor cannot be forged to skip the hold.
 */

type Params = z.output<typeof c.exportVcard.params>;

/** How long a page's cursor stays good. */
const CURSOR_TTL_MS = 24 * 60 * 60 * 1000;

/** The export's id: the same selection, format and caller on the same org is the same export (its pages, its hold). */
function exportIdOf(ctx: HandlerCtx, p: Params): string {
  const selection = p.listId !== undefined ? { listId: p.listId } : { ids: [...new Set([...(p.personIds ?? []), ...(p.orgIds ?? [])])].sort() };
  const digest = createHash('sha256')
    .update(JSON.stringify([ctx.orgId, ctx.principal.id, selection, p.version, p.format, p.includeNotes]))
    .digest();
  return `vcx_${BigInt(`0x${digest.subarray(0, 12).toString('hex')}`)
    .toString(36)
    .padStart(16, '0')
    .slice(-16)}`;
}

interface CursorBody {
  /** The export. */
  e: string;
  /** The caller. */
  p: string;
  /** The last party id of the previous page. */
  a: string;
  /** Expiry, ms since the epoch. */
  t: number;
}

const mac = (key: string, body: string) => createHmac('sha256', key).update(`directory.exportVcard\n${body}`).digest('base64url');

function signCursor(key: string, body: CursorBody): string {
  const text = Buffer.from(JSON.stringify(body)).toString('base64url');
  return `${text}.${mac(key, text)}`;
}

function readCursor(key: string, cursor: string, exportId: string, principalId: string, now: number): CursorBody {
  const [text, sig] = cursor.split('.');
  const refused = badRequest('cursor', 'not a cursor of this export, or expired (start again without cursor)');
  if (!text || !sig) throw refused;
  const want = Buffer.from(mac(key, text));
  const got = Buffer.from(sig);
  if (want.length !== got.length || !timingSafeEqual(want, got)) throw refused;
  let body: CursorBody;
  try {
    body = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as CursorBody;
  } catch {
    throw refused;
  }
  if (body.e !== exportId || body.p !== principalId || typeof body.a !== 'string' || !(body.t > now)) throw refused;
  return body;
}

/** Every party of the export, sorted by id: the ids asked for (merged ones followed to their survivors), or the list's active members. */
async function selectionIds(ctx: HandlerCtx, p: Params): Promise<string[]> {
  if (p.listId !== undefined) {
    const ids = await listScope({ q: ctx.q, families: ctx.deps.families, orgId: ctx.orgId, principalId: ctx.principal.id, prefix: '' }, p.listId, [
      'person',
      'org',
    ]);
    return [...new Set(ids)].sort();
  }
  const asked = [...new Set([...(p.personIds ?? []), ...(p.orgIds ?? [])])];
  const rows = await ctx.q.query<{ party_id: string; status: string }>(
    'SELECT party_id, status FROM directory_parties WHERE org_id = $1 AND party_id = ANY($2::text[])',
    [ctx.orgId, asked],
  );
  const status = new Map(rows.map((r) => [r.party_id, r.status]));
  const missing = asked.find((id) => !status.has(id));
  if (missing) throw notFound(`${noun(kindOf(missing))} ${missing}`);
  const out = new Set<string>();
  for (const id of asked) out.add(status.get(id) === 'merged' ? (await resolveParty(ctx.q, ctx.orgId, id)).partyId : id);
  return [...out].sort();
}

const summaryOf = (p: Params, total: number) =>
  `Export ${total} ${total === 1 ? 'party' : 'parties'}${p.listId ? ` of list ${p.listId}` : ''} as ${p.format === 'jcard' ? 'jCard' : `vCard ${p.version}`}` +
  `${p.includeNotes ? ', notes included' : ''}, out of the workspace`;

export const exportVcard = handler(c.exportVcard, async (ctx, p) => {
  const exportId = exportIdOf(ctx, p);
  const now = ctx.deps.clock.now().getTime();
  const after = p.cursor === undefined ? null : readCursor(ctx.deps.signingKey, p.cursor, exportId, ctx.principal.id, now).a;
  const ids = await selectionIds(ctx, p);
  // A page after the first continues an export already allowed: its cursor is signed and bound to it.
  const proof =
    after === null && mustHold(ctx.principal) && (p.listId !== undefined || ids.length > MAX_AGENT_EXPORT)
      ? await ctx.requireSignature({
          actionClass: 'directory.export_vcard',
          subjectId: exportId,
          summary: summaryOf(p, ids.length),
          // What is approved is the export, not a page of it.
          params: { ...p, cursor: undefined, limit: undefined },
        })
      : null;
  const start = after === null ? 0 : ids.findIndex((id) => id > after);
  const page = start < 0 ? [] : ids.slice(start, start + p.limit);
  const rows = await partyRows(ctx.q, ctx.orgId, page);
  const channels = await channelsOf(ctx.q, ctx.orgId, page);
  const cards = rows.map((r) => partyCard(r, channels.get(r.party_id) ?? [], { orgId: ctx.orgId, version: p.version, includeNotes: p.includeNotes }));
  const last = page[page.length - 1];
  const more = start >= 0 && start + p.limit < ids.length && last !== undefined;
  const nextCursor = more ? signCursor(ctx.deps.signingKey, { e: exportId, p: ctx.principal.id, a: last, t: now + CURSOR_TTL_MS }) : null;
  await ctx.emit('directory.vcard.export', exportId, {
    exportId,
    version: p.version,
    format: p.format,
    includeNotes: p.includeNotes,
    listId: p.listId ?? null,
    count: rows.length,
    persons: rows.filter((r) => r.kind === 'person').length,
    orgs: rows.filter((r) => r.kind === 'org').length,
    total: ids.length,
    page: after === null ? 'first' : 'next',
    ...(proof ? { approvalId: proof.approvalId } : {}),
  });
  return {
    exportId,
    count: rows.length,
    total: ids.length,
    version: p.version,
    format: p.format,
    mediaType: p.format === 'jcard' ? JCARD_MEDIA_TYPE : VCARD_MEDIA_TYPE,
    body: exportBody(cards, p.version, p.format),
    nextCursor,
  };
});
