import { ledger as c } from '../../../protocol/methods/books/ledger.js';
import { handler } from '../../core/handler.js';
import { today } from '../dates.js';
import { agedPayables, agedReceivables } from './aged.js';
import { balanceSheet, profitAndLoss, trialBalance } from './financial.js';
import { assetRegister, basSummary, payRuns, payrollSummary } from './registers.js';

export const reports = handler(c.reports, async (ctx, p) => {
  const { q, orgId } = ctx;
  switch (p.report) {
    case 'trialBalance':
      return trialBalance(q, orgId, p.asOf ?? today(ctx.deps));
    case 'balanceSheet':
      return balanceSheet(q, orgId, p.asOf ?? today(ctx.deps));
    case 'agedReceivables':
      return agedReceivables(q, orgId, p.asOf ?? today(ctx.deps));
    case 'agedPayables':
      return agedPayables(q, orgId, p.asOf ?? today(ctx.deps));
    case 'assetRegister':
      return assetRegister(q, orgId, p.asOf ?? today(ctx.deps));
    case 'profitAndLoss':
      return profitAndLoss(q, orgId, p.from, p.to);
    case 'basSummary':
      return basSummary(q, orgId, p.from, p.to);
    case 'payrollSummary':
      return payrollSummary(q, orgId, p.from, p.to);
    case 'payRuns':
      return payRuns(q, orgId, p.from, p.to);
  }
});
