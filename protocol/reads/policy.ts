import { z } from 'zod';
import { read } from '../contract.js';

export const policyReadContracts = {
  policy: read({
    summary:
      "The org's operating policy: the books' materiality floor (matches above it are held, bills above it need a human signature), GST and superannuation rates, the promise grace days, the tax-invoice threshold and the period lock date set by the last lodged BAS.",
    query: z.strictObject({}),
    result: z.strictObject({
      books: z.strictObject({
        materialityFloorCents: z.number().int().describe('"Above the floor" means strictly greater than this.'),
        lockDate: z.string().nullable().describe('Journals dated on or before it are refused; null when nothing is locked.'),
        gstRateBasisPoints: z.number().int().describe('1000 = 10%.'),
        superGuaranteeBasisPoints: z.number().int().describe('In force today: 1200 = 12% of ordinary time earnings (11.5% in 2024-25, 12% from 1 July 2025). Each pay run uses the rate of its pay date.'),
        promiseGraceDays: z.number().int(),
        taxInvoiceThresholdCents: z.number().int().describe('Purchases above it need a tax invoice to claim GST credits.'),
        state: z
          .enum(['ACT', 'NSW', 'NT', 'QLD', 'SA', 'TAS', 'VIC', 'WA'])
          .describe("The org's state (default NSW; an operator sets it): its public holidays and the national ones are not business days for Payday Super due dates."),
        paygSchedules: z
          .array(
            z.strictObject({
              name: z.string().describe('How payslips name it: "ATO Schedule 1 2024-25 (from 2024-07-01)".'),
              year: z.string().describe('The income year it was issued for.'),
              from: z.string().describe('First pay date it applies to.'),
              to: z.string().describe('Last pay date it applies to.'),
              source: z.string().describe('The ATO page the coefficients were taken from.'),
              published: z.string().describe("The ATO's publication date."),
              samples: z.number().int().describe('ATO sample rows it was checked against when loaded.'),
            }),
          )
          .describe('PAYG withholding schedules loaded, oldest first; a pay run dated outside all of them is refused (load the next with npm run cli -- payg-import).'),
      }),
    }),
    example: {},
  }),
};
