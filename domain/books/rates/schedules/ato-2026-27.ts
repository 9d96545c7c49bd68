import type { PaygScheduleData } from '../payg-schedule.js';
import { ATO_2026_27_SAMPLES } from './ato-2026-27.samples.js';
import { NO_TFN_SAMPLES } from './worked-amounts.js';

/*
 * ATO Schedule 1 (NAT 1004) for payments from 1 July 2026, published 17 June 2026 (ATO "About this schedule",
 * https://www.ato.gov.au/tax-rates-and-codes/payg-withholding-schedule-1-statement-of-formulas-for-calculating-amounts-to-be-withheld/about-this-schedule):
 * the 2026-27 tax cuts of the Treasury Laws Amendment (More Cost of Living Relief) Act 2025 (16% rate to 15%).
 * The ATO's coefficient page could not be read where this was built; the coefficients come from two independent
 * sources that agree row by row on all 35 rows of scales 1, 2, 3, 5 and 6 and on scale 4's rates:
 *  - manageitwa/payg-tax src/TaxScales/Nat1004.php, '2026-07-01' block, commit 8f9752dfd744c5da7ed19a5b343cb94855e6cbdf
 *    (scale 4 in the same file's getTaxWithheldAmount: 47% resident, 45% foreign, cents discarded);
 *  - jaysonsugpatanjs-hub/jaysonsugpatanjs-hub.github.io supabase/migrations/20261011000000_payroll.sql,
 *    compliance_rules 'payg_schedule1', commit 18943fd03e6a7ccca11502654e9fe618ffc236a0.
 * Samples: payg-tax's 720 worked amounts (tests/TaxScales/July2026, commit 1ec6206242ae08067c6187c05d8f732e09bd153b;
 * ato-2026-27.samples.ts) and its scale 4 amounts, every one reproduced by a test. docs/decisions/0048-payg-2026-27-sources.md.
 */
export const ATO_2026_27: PaygScheduleData = {
  label: '2026-27',
  from: '2026-07-01',
  to: '2027-06-30',
  source:
    'https://github.com/manageitwa/payg-tax/blob/8f9752dfd744c5da7ed19a5b343cb94855e6cbdf/src/TaxScales/Nat1004.php (2026-07-01 block), agreeing row by row with https://github.com/jaysonsugpatanjs-hub/jaysonsugpatanjs-hub.github.io/blob/18943fd03e6a7ccca11502654e9fe618ffc236a0/supabase/migrations/20261011000000_payroll.sql (payg_schedule1); the ATO schedule: https://www.ato.gov.au/tax-rates-and-codes/payg-withholding-schedule-1-statement-of-formulas-for-calculating-amounts-to-be-withheld/about-this-schedule',
  published: '2026-06-17',
  scales: {
    // Scale 1: the tax-free threshold is not claimed.
    '1': [
      [188, 0.15, 0.15],
      [371, 0.2084, 11.0185],
      [515, 0.179, 0.1066],
      [932, 0.3227, 74.1674],
      [2246, 0.32, 71.6508],
      [3303, 0.39, 228.8816],
      [null, 0.47, 493.1893],
    ],
    // Scale 2: the tax-free threshold is claimed.
    '2': [
      [362, 0, 0],
      [538, 0.15, 54.3462],
      [673, 0.25, 108.2135],
      [721, 0.17, 54.3473],
      [865, 0.179, 60.8377],
      [1282, 0.3227, 185.1935],
      [2596, 0.32, 181.7319],
      [3653, 0.39, 363.4627],
      [null, 0.47, 655.7704],
    ],
    // Scale 3: foreign residents (unchanged from 2024-25).
    '3': [
      [2596, 0.3, 0.3],
      [3653, 0.37, 181.7308],
      [null, 0.45, 474.0385],
    ],
    // Scale 4: no TFN declared (a flat rate of the pay).
    '4': { resident: 0.47, foreign: 0.45 },
    // Scale 5: the threshold claimed, full exemption from the Medicare levy.
    '5': [
      [362, 0, 0],
      [721, 0.15, 54.3462],
      [865, 0.159, 60.8365],
      [1282, 0.3027, 185.1923],
      [2596, 0.3, 181.7308],
      [3653, 0.37, 363.4615],
      [null, 0.45, 655.7692],
    ],
    // Scale 6: the threshold claimed, half exemption from the Medicare levy.
    '6': [
      [362, 0, 0],
      [721, 0.15, 54.3462],
      [865, 0.159, 60.8365],
      [908, 0.3027, 185.1923],
      [1135, 0.3527, 230.6135],
      [1282, 0.3127, 185.1923],
      [2596, 0.31, 181.7308],
      [3653, 0.38, 363.4615],
      [null, 0.46, 655.7692],
    ],
  },
  samples: [...ATO_2026_27_SAMPLES, ...NO_TFN_SAMPLES],
};
