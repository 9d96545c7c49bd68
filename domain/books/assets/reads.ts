import { assets as c } from '../../../protocol/methods/books/assets.js';
import { handler } from '../../core/handler.js';
import { pageByN } from '../paging.js';
import { ASSET_SELECT, assetView, type AssetRow } from './model.js';

export const assets = handler(c.assets, async (ctx, p) => {
  const { rows, nextCursor } = await pageByN<AssetRow>(
    ctx.q,
    `SELECT * FROM (${ASSET_SELECT} WHERE a.org_id = $1) x WHERE ($2::text IS NULL OR status = $2)`,
    [ctx.orgId, p.status ?? null],
    p,
  );
  return { assets: rows.map(assetView), nextCursor };
});
