import type { z } from 'zod';
import { badRequest } from '../../../protocol/errors.js';
import { charter as c, type CharterHead, type CharterVersion } from '../../../protocol/methods/charter.js';
import { handler } from '../../core/handler.js';
import { diffMarkdown, EMPTY_CHARTER, hashOf } from './document.js';
import { documentAt, historyPage, readHead, versionRow, type HeadRow, type VersionRow } from './store.js';

/* charter.get: any version, the history newest first, and a markdown diff between two versions. */

const iso = (v: string | Date) => new Date(v).toISOString();

export const headView = (h: HeadRow): z.output<typeof CharterHead> => ({
  id: h.charter_id,
  version: h.version,
  contentHash: h.content_hash,
  parentHash: h.parent_hash,
  updatedBy: h.updated_by,
  updatedAt: h.updated_at,
  title: h.document.title,
  mission: h.document.mission,
  sections: h.document.sections.length,
  colleagues: h.document.colleagues.length,
});

const toVersion = (r: VersionRow): z.output<typeof CharterVersion> => ({
  version: Number(r.version),
  contentHash: r.content_hash,
  parentHash: r.parent_hash,
  method: r.method,
  binding: Boolean(r.binding),
  decisionId: r.decision_id,
  approvalId: r.approval_id,
  by: r.created_by,
  at: iso(r.created_at),
});

function parseCursor(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  if (!/^[1-9][0-9]{0,8}$/.test(raw)) throw badRequest('cursor', 'not a cursor this read returned');
  return Number(raw);
}

export const get = handler(c.get, async (ctx, p) => {
  const head = await readHead(ctx.q, ctx.orgId);
  const version = p.version ?? head.version;
  const doc = await documentAt(ctx.q, ctx.orgId, head, version);
  const row = version === head.version || version === 0 ? null : await versionRow(ctx.q, ctx.orgId, version);
  const meta =
    version === head.version
      ? { version, contentHash: head.content_hash, parentHash: head.parent_hash, updatedBy: head.updated_by, updatedAt: head.updated_at }
      : row
        ? { version, contentHash: row.content_hash, parentHash: row.parent_hash, updatedBy: row.created_by, updatedAt: iso(row.created_at) }
        : { version: 0, contentHash: hashOf(EMPTY_CHARTER), parentHash: null, updatedBy: null, updatedAt: null };
  const diff =
    p.diffFrom === undefined
      ? null
      : {
          from: p.diffFrom,
          to: version,
          markdown: diffMarkdown({ version: p.diffFrom, doc: await documentAt(ctx.q, ctx.orgId, head, p.diffFrom) }, { version, doc }),
        };
  const page = await historyPage(ctx.q, ctx.orgId, parseCursor(p.cursor), p.limit + 1);
  const more = page.length > p.limit;
  const history = page.slice(0, p.limit).map(toVersion);
  return {
    charter: { id: head.charter_id, ...meta, title: doc.title, mission: doc.mission, sections: doc.sections, colleagues: doc.colleagues },
    history,
    nextCursor: more ? String(history.at(-1)!.version) : null,
    diff,
  };
});
