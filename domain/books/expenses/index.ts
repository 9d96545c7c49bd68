import { expenseApprove, expenseClaim } from './claims.js';

export { settleClaim } from './settle.js';

/** Expenses: 2 methods (claim, approve); reimbursement goes through settleClaim (bank matching). */
export const expensesHandlers = {
  expenseClaim,
  expenseApprove,
};
