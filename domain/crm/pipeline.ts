import { badRequest } from '../../protocol/errors.js';
import { PIPELINE, STAGES, type ForecastCategory, type RiskFlag, type Stage } from '../../protocol/methods/crm/index.js';

/*
 * The pipeline's arithmetic (protocol/methods/crm/shared.ts holds the table): weighted amounts, forecast
 * categories, days in stage and rot, risk flags and target periods. Everything time-based is computed at read with
 * the injected clock (ctx.deps.clock): nothing is scheduled, so a test that moves the clock sees the deal rot.
 */

const DAY_MS = 86_400_000;

/** Integer division rounded half away from zero (as the books round money). */
export function roundHalfAway(numerator: bigint, denominator: bigint): bigint {
  const sign = numerator < 0n !== denominator < 0n ? -1n : 1n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  return sign * ((n * 2n + d) / (d * 2n));
}

/** amount × probability%, rounded half away from zero. */
export const weighted = (amountCents: number, stage: Stage): number => Number(roundHalfAway(BigInt(amountCents) * BigInt(PIPELINE[stage].probability), 100n));

export const forecastOf = (stage: Stage, set: ForecastCategory | null): ForecastCategory => set ?? PIPELINE[stage].forecast;

/** SQL: the probability of the `stage` column (from the table above, so SQL and code cannot disagree). */
export const PROBABILITY_SQL = (col: string): string => `(CASE ${col} ${STAGES.map((s) => `WHEN '${s}' THEN ${PIPELINE[s].probability}`).join(' ')} END)`;
/** SQL: the rot days of the `stage` column (null: never rots). */
export const ROT_DAYS_SQL = (col: string): string =>
  `(CASE ${col} ${STAGES.filter((s) => PIPELINE[s].rotDays !== null)
    .map((s) => `WHEN '${s}' THEN ${PIPELINE[s].rotDays}`)
    .join(' ')} END)`;
/** SQL: the forecast category (the deal's own, else its stage's). */
export const FORECAST_SQL = (stageCol: string, setCol: string): string =>
  `coalesce(${setCol}, CASE ${stageCol} ${STAGES.map((s) => `WHEN '${s}' THEN '${PIPELINE[s].forecast}'`).join(' ')} END)`;

/** Whole days from `since` to `now` (0 at least). */
export const daysSince = (since: Date | string, now: Date): number => Math.max(0, Math.floor((now.getTime() - new Date(since).getTime()) / DAY_MS));

export const rotting = (status: string, stage: Stage, stageEnteredAt: Date | string, now: Date): boolean => {
  const rot = PIPELINE[stage].rotDays;
  return status === 'open' && rot !== null && daysSince(stageEnteredAt, now) > rot;
};

/** Days without activity before noActivity; days since our last outbound with no inbound since before ghosted; unviewed room days. */
export const RISK_DAYS = { noActivity: 14, ghosted: 14, roomUnviewed: 7 } as const;

/**
 * Each risk flag as SQL over a crm_deals row aliased d, at the instant in parameter `now` (timestamptz): the one
 * definition getDeal, listDeals' risk filter and next best action share. Only open deals carry flags.
 */
export function riskSql(now: string): Record<RiskFlag, string> {
  const before = (days: number) => `(${now}::timestamptz - interval '${days} days')`;
  const open = `d.status = 'open'`;
  const lastOut = `(SELECT max(i.occurred_at) FROM crm_interaction_links l JOIN crm_interactions i ON i.org_id = l.org_id AND i.interaction_id = l.interaction_id
      WHERE l.org_id = d.org_id AND l.target_id = d.deal_id AND i.direction = 'outbound')`;
  const lastIn = `(SELECT max(i.occurred_at) FROM crm_interaction_links l JOIN crm_interactions i ON i.org_id = l.org_id AND i.interaction_id = l.interaction_id
      WHERE l.org_id = d.org_id AND l.target_id = d.deal_id AND i.direction = 'inbound')`;
  return {
    noActivity: `${open} AND d.last_activity_at < ${before(RISK_DAYS.noActivity)}`,
    stalled: `${open} AND ${ROT_DAYS_SQL('d.stage')} IS NOT NULL AND d.stage_entered_at < ${now}::timestamptz - make_interval(days => ${ROT_DAYS_SQL('d.stage')})`,
    overdue: `${open} AND d.close_date < (${now}::timestamptz AT TIME ZONE 'UTC')::date`,
    closeDatePushed: `${open} AND d.close_date_pushes > 0`,
    singleThreaded: `${open} AND (SELECT count(DISTINCT r.contact_id) FROM crm_deal_contacts r WHERE r.org_id = d.org_id AND r.deal_id = d.deal_id) < 2`,
    noPower: `${open} AND NOT EXISTS (SELECT 1 FROM crm_deal_contacts r WHERE r.org_id = d.org_id AND r.deal_id = d.deal_id AND r.role IN ('economic_buyer', 'decision_maker'))`,
    ghosted: `${open} AND ${lastOut} < ${before(RISK_DAYS.ghosted)} AND coalesce(${lastIn} < ${lastOut}, true)`,
    roomUnviewed: `${open} AND EXISTS (SELECT 1 FROM crm_rooms m WHERE m.org_id = d.org_id AND m.deal_id = d.deal_id AND m.status = 'active'
      AND m.expires_at > ${now}::timestamptz AND m.created_at < ${before(RISK_DAYS.roomUnviewed)}
      AND NOT EXISTS (SELECT 1 FROM crm_share_views v WHERE v.org_id = m.org_id AND v.room_id = m.room_id))`,
  };
}

/** A period's first day and the day after its last (2026, 2026-Q3, 2026-07). */
export function periodRange(period: string): { from: string; until: string; to: string } {
  const year = Number(period.slice(0, 4));
  const pad = (n: number) => String(n).padStart(2, '0');
  let startMonth = 1;
  let months = 12;
  if (period.includes('-Q')) {
    startMonth = (Number(period.slice(6)) - 1) * 3 + 1;
    months = 3;
  } else if (period.length === 7) {
    startMonth = Number(period.slice(5));
    months = 1;
  } else if (period.length !== 4) throw badRequest('period', 'must be a year (2026), a quarter (2026-Q3) or a month (2026-07)');
  const end = new Date(Date.UTC(year, startMonth - 1 + months, 1));
  const last = new Date(end.getTime() - DAY_MS);
  return { from: `${year}-${pad(startMonth)}-01`, until: end.toISOString().slice(0, 10), to: last.toISOString().slice(0, 10) };
}
