import type { PaygScheduleData } from '../payg-schedule.js';
import { ATO_2024_25_SAMPLES } from './ato-2024-25.samples.js';
import { NO_TFN_SAMPLES } from './worked-amounts.js';

/*
 * ATO Schedule 1 (NAT 1004), payments from 1 July 2024, published 16 June 2024: scales 1 and 2 exactly as on
 * the ATO page "Coefficients to use in formulas for withholding from weekly payments" (checked 2026-11-24);
 * scales 3, 5 and 6 as in manageitwa/payg-tax src/TaxScales/Nat1004.php ('2024-07-01' block, commit
 * 8f9752dfd744c5da7ed19a5b343cb94855e6cbdf), whose scales 1 and 2 equal the ATO page row by row; scale 4 (no
 * TFN) 47% for a resident, 45% for a foreign resident. The ATO did not reissue Schedule 1 for 2025-26 ("no
 * changes to Schedule 1 ... The updates that were made on 1 July 2024 to Schedule 1 and the regular tax tables
 * will continue to apply to payments made from 1 July 2025", softwaredevelopers.ato.gov.au/2025-pay-you-go-payg-
 * withholding-tax-tables), so it runs to 30 June 2026. Samples: payg-tax's July2024 worked amounts (720 rows,
 * ato-2024-25.samples.ts) and its scale 4 amounts, every one reproduced by a test.
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
    // Scale 3: foreign residents.
    '3': [
      [2596, 0.3, 0.3],
      [3653, 0.37, 181.7308],
      [null, 0.45, 474.0385],
    ],
    // Scale 4: no TFN declared (a flat rate of the pay).
    '4': { resident: 0.47, foreign: 0.45 },
    // Scale 5: the threshold claimed, full exemption from the Medicare levy.
    '5': [
      [361, 0, 0],
      [721, 0.16, 57.8462],
      [865, 0.169, 64.3365],
      [1282, 0.3027, 180.0385],
      [2596, 0.3, 176.5769],
      [3653, 0.37, 358.3077],
      [null, 0.45, 650.6154],
    ],
    // Scale 6: the threshold claimed, half exemption from the Medicare levy.
    '6': [
      [361, 0, 0],
      [721, 0.16, 57.8462],
      [843, 0.169, 64.3365],
      [865, 0.219, 106.4962],
      [1053, 0.3527, 222.1981],
      [1282, 0.3127, 180.0385],
      [2596, 0.31, 176.5769],
      [3653, 0.38, 358.3077],
      [null, 0.46, 650.6154],
    ],
  },
  samples: [...ATO_2024_25_SAMPLES, ...NO_TFN_SAMPLES],
};
