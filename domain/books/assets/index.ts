import { assetDepreciationRun } from './depreciation.js';
import { assetDispose } from './disposal.js';
import { assets } from './reads.js';

export { registerAsset, isAssetCostAccount } from './register.js';

/** Assets: depreciation runs, disposals and the register read. */
export const assetsHandlers = {
  assetDepreciationRun,
  assetDispose,
  assets,
};
