import { AGEING_BUCKETS } from '../../../protocol/methods/books/receivables.js';
import { daysBetween } from '../dates.js';

/** Ageing of open items by days past due, shared by statements and the aged receivables/payables reports. */

export type Bucket = (typeof AGEING_BUCKETS)[number];

export function bucketFor(daysOverdue: number): Bucket {
  if (daysOverdue <= 0) return 'current';
  if (daysOverdue <= 30) return '1-30';
  if (daysOverdue <= 60) return '31-60';
  if (daysOverdue <= 90) return '61-90';
  return '90+';
}

export const overdueDays = (dueDate: string, asOf: string): number => Math.max(0, daysBetween(dueDate, asOf));

export function emptyBuckets(): Record<Bucket, number> {
  return Object.fromEntries(AGEING_BUCKETS.map((b) => [b, 0])) as Record<Bucket, number>;
}
