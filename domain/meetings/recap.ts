import type { AskOutcome } from '../../ai-gateway/gateway.js';
import { ApiError, badRequest, conflict } from '../../protocol/errors.js';
import { meetings as c } from '../../protocol/methods/meetings.js';
import type { Queryable } from '../../db/types.js';
import { askAsCaller } from '../core/ask.js';
import { handler, type PrepareCtx } from '../core/handler.js';
import { writeDocAs } from '../files/index.js';
import { MEETING_NOTE, RECAP_METHOD, TRANSCRIPT_TOOL, TranscriptParams, type RecapClaim, type TranscriptView } from './answerer.js';
import { currentActions, currentDecisions, currentLines, iso, toLine, visibleMeeting, type MeetingRow, type RecapOut } from './model.js';

/*
 * meetings.recapFile: the AI gateway recaps the meeting in prepare, outside the call's transaction (a model may take
 * minutes); run files the recap as a doc through the files family, as the caller: the first recap a new doc, each
 * later one the next revision of the same doc. A recap of the current meeting revision stands (changed:false,
 * without asking the AI again). The recorded decisions and action items are the meeting's own and always filed; the
 * summary and its points are the AI's, each quoting the lines it cites, and null when it refused.
 */

const FILES_WRITE = 'files.write';

type Asked = { status: 'answered' | 'refused'; answer: string | null; claims: RecapClaim[]; reason: string | null; auditSeq: number | null };
type Prepared = { revision: number; asked: Asked | null };

/** The one read the answerer has: the meeting being recapped, as the caller sees it. */
async function transcriptView(q: Queryable, orgId: string, meetingId: string, principalId: string): Promise<TranscriptView> {
  const m = await visibleMeeting(q, orgId, meetingId, principalId);
  const lines = (await currentLines(q, orgId, meetingId)).map(toLine);
  return {
    note: MEETING_NOTE,
    meeting: { id: m.meeting_id, title: m.title, startedAt: iso(m.started_at), endedAt: iso(m.ended_at), notes: m.notes },
    lines: lines.map((l) => ({ id: l.id, speaker: l.speaker, startMs: l.startMs, text: l.text })),
  };
}

async function askRecap(ctx: PrepareCtx, meetingId: string): Promise<Asked> {
  const readAs = async (method: string, params: unknown): Promise<unknown> => {
    if (method !== TRANSCRIPT_TOOL) throw badRequest('method', `this recap reads only ${TRANSCRIPT_TOOL}`);
    const parsed = TranscriptParams.safeParse(params ?? {});
    if (!parsed.success || parsed.data.meetingId !== meetingId) throw badRequest('meetingId', `this recap is limited to meeting ${meetingId}: read only it`);
    return transcriptView(ctx.db, ctx.orgId, meetingId, ctx.principal.id);
  };
  let outcome: AskOutcome;
  try {
    outcome = await askAsCaller(ctx, { method: RECAP_METHOD, question: `Recap meeting ${meetingId}.`, readAs });
  } catch (err) {
    // The org's AI budget is spent or off: no summary (never invented); the recorded parts are still filed.
    if (err instanceof ApiError && err.code === 'RATE_LIMITED') return { status: 'refused', answer: null, claims: [], reason: err.message, auditSeq: null };
    throw err;
  }
  return { status: outcome.status, answer: outcome.answer, claims: outcome.claims as RecapClaim[], reason: outcome.reason, auditSeq: outcome.audit.seq };
}

const storedRecap = (m: MeetingRow): RecapOut | null => (typeof m.recap === 'string' ? (JSON.parse(m.recap) as RecapOut) : m.recap);

/** Words as Markdown text: the characters Markdown would read as markup escaped, so a line stays a line. */
const md = (s: string) => s.replace(/\s+/g, ' ').replace(/([\\`*_[\]<>#|~!&])/g, '\\$1');
const citesOf = (ids: readonly string[]) => (ids.length ? ` (${ids.join(', ')})` : '');

function markdownOf(m: MeetingRow, revision: number, recap: RecapOut): string {
  const out = [
    `# Recap: ${md(m.title ?? 'Meeting')}`,
    '',
    `${iso(m.started_at)} to ${iso(m.ended_at)}, meeting ${m.meeting_id} revision ${revision}.`,
    '',
    '## Summary',
    '',
  ];
  out.push(
    recap.summary === null
      ? 'No summary was made (the AI gateway refused; nothing is invented). The decisions and actions below are as recorded.'
      : md(recap.summary),
  );
  if (recap.points.length) out.push('', '## Points', '', ...recap.points.map((p) => `- ${md(p.text)}${citesOf(p.cites)}`));
  out.push('', '## Decisions', '');
  out.push(
    ...(recap.decisions.length ? recap.decisions.map((d) => `- ${md(d.text)}${citesOf([...(d.entryId ? [d.entryId] : []), ...d.cites])}`) : ['None recorded.']),
  );
  out.push('', '## Action items', '');
  out.push(
    ...(recap.actions.length
      ? recap.actions.map((a) => `- ${md(a.text)}${citesOf([...(a.assigneeId ? [a.assigneeId] : []), ...(a.taskId ? [a.taskId] : []), ...a.cites])}`)
      : ['None recorded.']),
  );
  return out.join('\n');
}

export const recapFile = handler(
  c.recapFile,
  async (ctx, p, prepared: Prepared) => {
    const now = ctx.deps.clock.now();
    const m = await visibleMeeting(ctx.q, ctx.orgId, p.meetingId, ctx.principal.id, true);
    const revision = Number(m.revision);
    const stored = storedRecap(m);
    if (m.recap_of_revision !== null && Number(m.recap_of_revision) === revision && m.recap_file_id !== null && stored) {
      await ctx.emit('meetings.recap.file', m.meeting_id, {
        meetingId: m.meeting_id,
        meetingRevision: revision,
        fileId: m.recap_file_id,
        fileRevision: Number(m.recap_file_revision),
        noop: true,
      });
      return {
        fileId: m.recap_file_id,
        revision: Number(m.recap_file_revision),
        meetingRevision: revision,
        recap: stored,
        status: stored.summary === null ? 'refused' : 'answered',
        refusal: null,
        auditSeq: null,
        changed: false,
      };
    }
    if (prepared.asked === null || prepared.revision !== revision) {
      throw conflict(`meeting ${m.meeting_id} changed while its recap was made (now revision ${revision}): call meetings.recapFile again`);
    }
    const asked = prepared.asked;
    const decisions = await currentDecisions(ctx.q, ctx.orgId, [m.meeting_id]);
    const actions = await currentActions(ctx.q, ctx.orgId, [m.meeting_id]);
    const claims = asked.status === 'answered' ? asked.claims : [];
    const cites = (x: RecapClaim) => x.cites.flatMap((k) => (k.kind === 'record' ? [k.id] : []));
    const recorded = new Set(decisions.map((d) => d.text.toLowerCase()));
    const recap: RecapOut = {
      summary: asked.status === 'answered' ? asked.answer : null,
      points: claims.map((x) => ({ text: x.quote ?? x.text, cites: cites(x) })),
      decisions: [
        ...decisions.map((d) => ({ text: d.text, entryId: d.entry_id, cites: [] })),
        ...claims
          .filter((x) => x.role === 'decision' && !recorded.has((x.quote ?? x.text).toLowerCase()))
          .map((x) => ({ text: x.quote ?? x.text, entryId: null, cites: cites(x) })),
      ],
      actions: [
        ...actions.map((a) => ({ text: a.text, actionId: a.action_id, assigneeId: a.assignee_id, taskId: a.task_id, cites: [] })),
        ...claims.filter((x) => x.role === 'action').map((x) => ({ text: x.quote ?? x.text, actionId: null, assigneeId: null, taskId: null, cites: cites(x) })),
      ],
    };
    const doc = await writeDocAs(ctx.q, ctx.orgId, {
      principal: ctx.principal,
      fileId: m.recap_file_id ?? undefined,
      name: `Recap: ${m.title ?? 'Meeting'} (${iso(m.started_at).slice(0, 10)})`,
      folderId: m.recap_file_id === null ? p.folderId : undefined,
      markdown: markdownOf(m, revision, recap),
      now,
    });
    await ctx.q.query(
      `UPDATE meetings SET recap_file_id = $3, recap_of_revision = $4, recap_file_revision = $5, recap = $6::jsonb, status = 'recapped', updated_at = $7
        WHERE org_id = $1 AND meeting_id = $2`,
      [ctx.orgId, m.meeting_id, doc.fileId, revision, doc.revision, JSON.stringify(recap), now.toISOString()],
    );
    await ctx.emit('meetings.recap.file', m.meeting_id, {
      meetingId: m.meeting_id,
      meetingRevision: revision,
      fileId: doc.fileId,
      fileRevision: doc.revision,
      status: asked.status,
      points: recap.points.length,
      decisions: recap.decisions.length,
      actions: recap.actions.length,
      auditSeq: asked.auditSeq,
    });
    return {
      fileId: doc.fileId,
      revision: doc.revision,
      meetingRevision: revision,
      recap,
      status: asked.status,
      refusal: asked.status === 'refused' ? asked.reason : null,
      auditSeq: asked.auditSeq,
      changed: true,
    };
  },
  {
    async prepare(ctx, p): Promise<Prepared> {
      // Refused before the AI is asked: nothing spent on a recap that cannot be filed.
      if (!ctx.principal.scopes.has(FILES_WRITE)) {
        throw new ApiError('FORBIDDEN_SCOPE', `missing scope ${FILES_WRITE}, needed to file the recap as a doc (it is filed as you)`);
      }
      const m = await visibleMeeting(ctx.db, ctx.orgId, p.meetingId, ctx.principal.id);
      const revision = Number(m.revision);
      if (m.recap_of_revision !== null && Number(m.recap_of_revision) === revision && m.recap_file_id !== null) return { revision, asked: null };
      return { revision, asked: await askRecap(ctx, p.meetingId) };
    },
  },
);
