import { one, type Db } from '../db/types.js';
import { appendEvent } from '../ledger/append.js';
import { findOrgBySlug } from './people/index.js';

export interface AiSettingsChange {
  /** Micro-dollars a month; null: back to the server default (AI_MONTHLY_BUDGET_USD); undefined: unchanged. */
  monthlyBudgetMicroUsd?: number | null;
  /** Keep redacted question and answer bodies in the AI audit. */
  storeBodies?: boolean;
}

/**
 * An operator act (npm run cli -- ai-settings): set an org's AI budget and whether the audit keeps bodies.
 * Ledgered like the other operator acts, with the system actor, as `org.ai_settings.update`.
 */
export async function setAiSettings(db: Db, slug: string, change: AiSettingsChange): Promise<{ monthlyBudgetMicroUsd: number | null; storeBodies: boolean }> {
  return db.tx(async (q) => {
    const org = await findOrgBySlug(q, slug);
    if (!org) throw new Error(`org ${slug} not found`);
    await q.query('INSERT INTO ai_settings (org_id) VALUES ($1) ON CONFLICT (org_id) DO NOTHING', [org.orgId]);
    const row = one(
      await q.query<{ monthly_budget_micro_usd: number | null; store_bodies: boolean }>(
        `UPDATE ai_settings SET
         monthly_budget_micro_usd = CASE WHEN $2 THEN $3::bigint ELSE monthly_budget_micro_usd END,
         store_bodies = coalesce($4::boolean, store_bodies),
         updated_at = now()
       WHERE org_id = $1 RETURNING monthly_budget_micro_usd, store_bodies`,
        [org.orgId, change.monthlyBudgetMicroUsd !== undefined, change.monthlyBudgetMicroUsd ?? null, change.storeBodies ?? null],
      ),
    );
    const settings = {
      monthlyBudgetMicroUsd: row.monthly_budget_micro_usd === null ? null : Number(row.monthly_budget_micro_usd),
      storeBodies: row.store_bodies,
    };
    await appendEvent(q, org.orgId, { family: 'org', kind: 'org.ai_settings.update', entityId: org.orgId, actor: '', payload: { ...settings, by: 'system' } });
    return settings;
  });
}
