import { ACCOUNTS } from '../../../protocol/methods/books/chart.js';
import type { Queryable } from '../../../db/types.js';
import { newId } from '../../core/ids.js';

/** Effective lives by cost account (ATO TR 2022/1 ranges, rounded): office equipment 10 years, computers 4. */
export const DEFAULT_LIFE_YEARS: Record<string, number> = { '710': 10, '720': 4 };

/**
 * Register a fixed asset bought on a cost account (710 or 720): called by whatever posted the purchase (bill
 * approval, a bank line coded to the account, the demo seed), in the same transaction.
 */
export async function registerAsset(
  q: Queryable,
  orgId: string,
  a: {
    name: string;
    costAccount: string;
    costCents: number;
    purchaseDate: string;
    sourceKind: string;
    sourceId: string;
    createdBy: string;
    lifeYears?: number;
    residualCents?: number;
    method?: 'STRAIGHT_LINE' | 'DIMINISHING_VALUE';
  },
): Promise<string> {
  const accumulated = ACCOUNTS.get(a.costAccount)?.accumulated;
  if (!accumulated) throw new Error(`${a.costAccount} is not a fixed asset cost account`);
  const assetId = newId('ast');
  await q.query(
    `INSERT INTO books_assets (org_id, asset_id, name, cost_account, accumulated_account, cost_cents, residual_cents, purchase_date,
                               life_years, method, status, source_kind, source_id, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'REGISTERED', $11, $12, $13)`,
    [
      orgId,
      assetId,
      a.name,
      a.costAccount,
      accumulated,
      a.costCents,
      a.residualCents ?? 0,
      a.purchaseDate,
      a.lifeYears ?? DEFAULT_LIFE_YEARS[a.costAccount],
      a.method ?? 'STRAIGHT_LINE',
      a.sourceKind,
      a.sourceId,
      a.createdBy,
    ],
  );
  return assetId;
}

/** Whether a purchase line on this account registers an asset. */
export const isAssetCostAccount = (code: string): boolean => ACCOUNTS.get(code)?.accumulated !== undefined;
