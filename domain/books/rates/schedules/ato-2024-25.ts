import type { PaygScheduleData } from '../payg-schedule.js';

/*
 * ATO Schedule 1 (NAT 1004), payments from 1 July 2024, published 16 June 2024: scales 1 and 2 exactly as on
 * the ATO page "Coefficients to use in formulas for withholding from weekly payments" (checked 2026-11-24).
 * The ATO did not reissue Schedule 1 for 2025-26 ("no changes to Schedule 1 ... The updates that were made on
 * 1 July 2024 to Schedule 1 and the regular tax tables will continue to apply to payments made from 1 July
 * 2025", softwaredevelopers.ato.gov.au/2025-pay-you-go-payg-withholding-tax-tables), so it runs to 30 June 2026.
 * The ATO's sample data page for this schedule could not be retrieved, so no samples are recorded here.
 */
export const ATO_2024_25: PaygScheduleData = {
  label: '2024-25',
  from: '2024-07-01',
  to: '2026-06-30',
  source:
    'https://www.ato.gov.au/tax-rates-and-codes/payg-withholding-schedule-1-statement-of-formulas-for-calculating-amounts-to-be-withheld/coefficients-to-use-in-formulas-for-withholding-from-weekly-payments',
  published: '2024-06-16',
  scales: {
    // Scale 1: the tax-free threshold is not claimed.
    '1': [
      [150, 0.16, 0.16],
      [371, 0.2117, 7.755],
      [515, 0.189, -0.6702],
      [932, 0.3227, 68.2367],
      [2246, 0.32, 65.7202],
      [3303, 0.39, 222.951],
      [null, 0.47, 487.2587],
    ],
    // Scale 2: the tax-free threshold is claimed.
    '2': [
      [361, 0, 0],
      [500, 0.16, 57.8462],
      [625, 0.26, 107.8462],
      [721, 0.18, 57.8462],
      [865, 0.189, 64.3365],
      [1282, 0.3227, 180.0385],
      [2596, 0.32, 176.5769],
      [3653, 0.39, 358.3077],
      [null, 0.47, 650.6154],
    ],
  },
  samples: [],
};
