import { badRequest, conflict } from '../../../protocol/errors.js';
import { hierarchy as c } from '../../../protocol/methods/hierarchy.js';
import type { Queryable } from '../../../db/types.js';
import { family, type Family } from '../../core/family.js';
import { handler } from '../../core/handler.js';
import { bumpChartRevision, chartRevision, setManagers } from '../member/chart.js';
import { laneHold } from '../member/lane.js';
import { lockPeople } from '../member/model.js';

/*
 * hierarchy.set: a whole reorg in one call. The lines are checked against the chart they would produce (one
 * forest: every member at most once, every manager a member in the chart, no cycle), so a valid reorg may pass
 * through states that would be cycles line by line (A under B, then B under the top). One bad line fails all.
 */

type Line = { memberId: string; managerId: string | null };

const CYCLE_SHOWN = 10;

/** The members whose manager the lines change, after checking the lines as one forest (else BAD_REQUEST naming the line). */
export async function planLines(q: Queryable, orgId: string, lines: readonly Line[]): Promise<Line[]> {
  const rows = await q.query<{ principal_id: string; manager_id: string | null; status: string }>(
    'SELECT principal_id, manager_id, status FROM principals WHERE org_id = $1',
    [orgId],
  );
  const members = new Map(rows.map((r) => [r.principal_id, r]));
  const lineOf = new Map<string, number>();
  for (const [i, line] of lines.entries()) {
    const at = `lines.${i}`;
    const seen = lineOf.get(line.memberId);
    if (seen !== undefined) throw badRequest(`${at}.memberId`, `${line.memberId} is also on line ${seen}; list each member once`);
    lineOf.set(line.memberId, i);
    const m = members.get(line.memberId);
    if (!m) throw badRequest(`${at}.memberId`, `no member ${line.memberId} in this org`);
    if (m.status === 'archived') throw badRequest(`${at}.memberId`, `${line.memberId} is archived and not in the chart`);
    if (line.managerId === null) continue;
    if (line.managerId === line.memberId) throw badRequest(`${at}.managerId`, `${line.memberId} cannot report to itself`);
    const boss = members.get(line.managerId);
    if (!boss) throw badRequest(`${at}.managerId`, `no member ${line.managerId} in this org`);
    if (boss.status === 'archived') throw badRequest(`${at}.managerId`, `${line.managerId} is archived and not in the chart`);
  }
  // The chart the lines would produce. It was a forest before, so any cycle now runs through a listed member.
  const parent = new Map<string, string | null>([...members].map(([id, r]) => [id, r.manager_id]));
  for (const line of lines) parent.set(line.memberId, line.managerId);
  const state = new Map<string, 'walking' | 'done'>();
  let worst: { line: number; cycle: string[] } | undefined;
  for (const line of lines) {
    const path: string[] = [];
    let node: string | null | undefined = line.memberId;
    while (node && !state.has(node)) {
      state.set(node, 'walking');
      path.push(node);
      node = parent.get(node);
    }
    if (node && state.get(node) === 'walking') {
      const cycle = path.slice(path.indexOf(node));
      // Name the cycle's earliest line, and the cycle as seen from that member.
      const first = Math.min(...cycle.flatMap((id) => (lineOf.has(id) ? [lineOf.get(id)!] : [])));
      if (!worst || first < worst.line) {
        const start = cycle.indexOf(lines[first].memberId);
        worst = { line: first, cycle: [...cycle.slice(start), ...cycle.slice(0, start)] };
      }
    }
    for (const id of path) state.set(id, 'done');
  }
  if (worst) {
    const shown = worst.cycle.length > CYCLE_SHOWN ? [...worst.cycle.slice(0, CYCLE_SHOWN), `… (${worst.cycle.length} members)`] : worst.cycle;
    throw badRequest(`lines.${worst.line}.managerId`, `would close a reporting cycle (each reports to the next): ${[...shown, worst.cycle[0]].join(' -> ')}`);
  }
  return lines.filter((l) => members.get(l.memberId)!.manager_id !== l.managerId);
}

export const set = handler(c.set, async (ctx, p) => {
  await lockPeople(ctx.q, ctx.orgId);
  const current = await chartRevision(ctx.q, ctx.orgId);
  if (p.expectedRevision !== current) {
    throw conflict(
      `expectedRevision: the chart is at revision ${current}, not ${p.expectedRevision}; read GET /hierarchy again, recompute the lines and retry with expectedRevision ${current}`,
    );
  }
  const changes = await planLines(ctx.q, ctx.orgId, p.lines);
  if (changes.length === 0) {
    await ctx.emit('hierarchy.lines.set', ctx.orgId, { lines: p.lines.length, moved: 0, revision: current, noop: true });
    return { lines: p.lines.length, moved: 0, revision: current, changed: false };
  }
  // A reorg changes who approves what: an agent's waits for a human (retry mode), with counts only in the summary.
  // The class is the method's own (signature.ts derives one from the other): hierarchy.set.
  const proof = laneHold(ctx.principal, 'hierarchy.set')
    ? await ctx.requireSignature({
        actionClass: 'hierarchy.set',
        subjectId: ctx.orgId,
        summary: `Set ${p.lines.length} reporting lines (${changes.length} members change manager) on chart revision ${current}`,
        params: p,
      })
    : null;
  const moved = await setManagers(
    ctx.q,
    ctx.orgId,
    changes.map((l) => l.memberId),
    changes.map((l) => l.managerId),
  );
  const revision = await bumpChartRevision(ctx.q, ctx.orgId);
  await ctx.emit('hierarchy.lines.set', ctx.orgId, {
    lines: p.lines.length,
    moved: moved.length,
    revision,
    ...(proof ? { approvalId: proof.approvalId } : {}),
  });
  return { lines: p.lines.length, moved: moved.length, revision, changed: true };
});

export const hierarchyHandlers = family('hierarchy', { set });

/** The hierarchy family, as domain/deployed.ts lists it. */
export const hierarchyFamily: Family = { name: 'hierarchy', methods: hierarchyHandlers };
