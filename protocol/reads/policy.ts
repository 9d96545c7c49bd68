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
        superGuaranteeBasisPoints: z.number().int().describe('1200 = 12% of ordinary time earnings.'),
        promiseGraceDays: z.number().int(),
        taxInvoiceThresholdCents: z.number().int().describe('Purchases above it need a tax invoice to claim GST credits.'),
      }),
    }),
    example: {},
  }),
};
