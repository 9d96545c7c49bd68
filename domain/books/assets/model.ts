import { notFound } from '../../../protocol/errors.js';
import type { Asset } from '../../../protocol/methods/books/assets.js';
import type { Queryable } from '../../../db/types.js';

/** The asset row with its accumulated depreciation (the sum of its depreciation rows), its view and loading. */

export interface AssetRow {
  n: number;
  asset_id: string;
  name: string;
  cost_account: string;
  accumulated_account: string;
  cost_cents: number;
  residual_cents: number;
  purchase_date: string;
  life_years: number;
  method: Asset['method'];
  status: Asset['status'];
  source_kind: string;
  source_id: string;
  disposed_date: string | null;
  proceeds_cents: number | null;
  disposal_gain_cents: number | null;
  disposal_journal_id: string | null;
  created_at: string;
  accumulated_cents: number;
  depreciated_through: string | null;
}

export const ASSET_SELECT = `
  SELECT a.n, a.asset_id, a.name, a.cost_account, a.accumulated_account, a.cost_cents, a.residual_cents, a.purchase_date,
         a.life_years, a.method, a.status, a.source_kind, a.source_id, a.disposed_date, a.proceeds_cents, a.disposal_gain_cents,
         a.disposal_journal_id, a.created_at,
         coalesce(d.accumulated, 0)::bigint AS accumulated_cents, d.through AS depreciated_through
    FROM books_assets a
    LEFT JOIN LATERAL (
      SELECT sum(amount_cents) AS accumulated, max(period_end) AS through FROM books_depreciation
       WHERE org_id = a.org_id AND asset_id = a.asset_id
    ) d ON true`;

/** The asset, locked for the call's transaction when `lock`. Another org's id is NOT_FOUND too. */
export async function loadAsset(q: Queryable, orgId: string, assetId: string, lock = false): Promise<AssetRow> {
  if (lock) {
    const [locked] = await q.query('SELECT 1 FROM books_assets WHERE org_id = $1 AND asset_id = $2 FOR UPDATE', [orgId, assetId]);
    if (!locked) throw notFound(`asset ${assetId}`);
  }
  const [row] = await q.query<AssetRow>(`${ASSET_SELECT} WHERE a.org_id = $1 AND a.asset_id = $2`, [orgId, assetId]);
  if (!row) throw notFound(`asset ${assetId}`);
  return row;
}

/** `Laptop (ast_…)`: how messages name an asset. */
export const assetLabel = (r: Pick<AssetRow, 'name' | 'asset_id'>): string => `${r.name} (${r.asset_id})`;

export const bookValue = (r: Pick<AssetRow, 'cost_cents' | 'accumulated_cents'>): number => r.cost_cents - r.accumulated_cents;

export function assetView(r: AssetRow): Asset {
  const book = bookValue(r);
  return {
    id: r.asset_id,
    name: r.name,
    costAccount: r.cost_account,
    accumulatedAccount: r.accumulated_account,
    costCents: r.cost_cents,
    residualCents: r.residual_cents,
    purchaseDate: r.purchase_date,
    lifeYears: r.life_years,
    method: r.method,
    status: r.status,
    accumulatedDepreciationCents: r.accumulated_cents,
    bookValueCents: book,
    depreciatedThrough: r.depreciated_through,
    disposal:
      r.status === 'DISPOSED'
        ? {
            date: r.disposed_date as string,
            proceedsCents: r.proceeds_cents as number,
            gainCents: r.disposal_gain_cents as number,
            journalId: r.disposal_journal_id as string,
          }
        : null,
    source: { kind: r.source_kind, id: r.source_id },
    createdAt: r.created_at,
  };
}
