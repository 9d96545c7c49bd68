import type { Queryable } from '../db/types.js';
import { BOSS_SCHEMA } from '../domain/jobs/scheduler.js';

/** `jobs`: the scheduler's jobs as an operator sees them, from pg-boss's job table (pg-boss 12 keeps finished jobs there until their
 * deleteAfterSeconds, 7 days by default; it has no archive table). */

export const JOB_STATES = { pending: ['created', 'retry', 'active'], failed: ['failed', 'cancelled'], done: ['completed'] } as const;
export type JobStateFilter = keyof typeof JOB_STATES;

export interface JobsQuery {
  state?: string;
  org?: string;
  limit?: string;
}

interface JobRow {
  id: string;
  name: string;
  state: string;
  slug: string | null;
  org_id: string | null;
  attempts: number;
  retry_limit: number;
  start_after: string;
  completed_on: string | null;
  error: string | null;
}

export async function jobsCommand(db: Queryable, query: JobsQuery): Promise<string> {
  if (query.state !== undefined && !(query.state in JOB_STATES)) throw new Error(`--state: must be one of ${Object.keys(JOB_STATES).join(', ')}`);
  const limit = query.limit === undefined ? 50 : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) throw new Error('--limit: a whole number from 1 to 10000');
  let orgId: string | null = null;
  if (query.org !== undefined) {
    const [org] = await db.query<{ org_id: string }>('SELECT org_id FROM orgs WHERE slug = $1', [query.org]);
    if (!org) throw new Error(`--org: no org ${query.org}`);
    orgId = org.org_id;
  }
  const states = query.state ? [...JOB_STATES[query.state as JobStateFilter]] : null;
  const rows = await db.query<JobRow>(
    `SELECT j.id::text, j.name, j.state::text AS state, o.slug, j.data->>'orgId' AS org_id,
            CASE WHEN j.started_on IS NULL THEN 0 ELSE j.retry_count + 1 END AS attempts, j.retry_limit,
            j.start_after, j.completed_on,
            CASE WHEN j.state IN ('retry', 'failed') THEN COALESCE(j.output->>'message', j.output#>>'{value,message}', j.output->>'value', j.output::text) END AS error
       FROM ${BOSS_SCHEMA}.job j
       LEFT JOIN orgs o ON o.org_id = j.data->>'orgId'
      WHERE ($1::text[] IS NULL OR j.state::text = ANY($1::text[])) AND ($2::text IS NULL OR j.data->>'orgId' = $2)
      ORDER BY j.start_after DESC, j.id
      LIMIT $3`,
    [states, orgId, limit],
  );
  const what = `${query.state ?? 'all'} jobs${query.org ? ` of org ${query.org}` : ''}`;
  if (rows.length === 0) return `No ${what}.`;
  const table = [
    ['NAME', 'STATE', 'ORG', 'ATTEMPTS', 'NEXT RUN', 'LAST ERROR'],
    ...rows.map((r) => [
      r.name,
      r.state,
      r.slug ?? r.org_id ?? '-',
      `${r.attempts}/${r.retry_limit + 1}`,
      ['created', 'retry'].includes(r.state) ? r.start_after : '-',
      r.error ? firstLine(r.error) : '',
    ]),
  ];
  const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
  const lines = table.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i])))
      .join('  ')
      .trimEnd(),
  );
  return `${lines.join('\n')}\n${rows.length} ${what}${rows.length === limit ? ` (the newest ${limit}; --limit shows more)` : ''}.`;
}

const firstLine = (text: string) => {
  const line = text.split('\n')[0];
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
};
