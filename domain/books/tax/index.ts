import { taxSignLodge } from './lodge.js';
import { taxHold, taxPrepare, taxReturn } from './lodgements.js';
import { taxObligations } from './obligations.js';

export { computeBas, type BasFigures } from './bas.js';

/** Tax: the BAS from preparation to lodgement (4 methods) and the obligations read. */
export const taxHandlers = {
  taxPrepare,
  taxHold,
  taxReturn,
  taxSignLodge,
  taxObligations,
};
