import { leaveApprove, leaveRequest } from './leave.js';
import { onboardingAdvance, onboardingStart } from './onboarding.js';
import { payrollDraft, payrollRecall, payrollSign } from './runs.js';
import { stpResubmit } from './stp.js';

export { settlePayRun } from './settle.js';
export { recordStpResponse } from './stp.js';

/** Payroll and people: 8 methods (onboarding, pay runs, leave, STP). */
export const payrollHandlers = {
  onboardingStart,
  onboardingAdvance,
  payrollDraft,
  payrollSign,
  payrollRecall,
  leaveRequest,
  leaveApprove,
  stpResubmit,
};
