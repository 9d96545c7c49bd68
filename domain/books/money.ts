/** Money is integer cents. One rounding rule everywhere: half away from zero. */

/** round(a / b) for integers, halves away from zero. */
export function divRound(a: number, b: number): number {
  const sign = Math.sign(a) * Math.sign(b);
  const [x, y] = [Math.abs(a), Math.abs(b)];
  return sign * Math.floor((2 * x + y) / (2 * y));
}

/** The GST inside a GST-inclusive amount: round(total / 11). */
export const gstOf = (grossCents: number): number => divRound(grossCents, 11);

/** Percentage in basis points (1200 = 12%) of an amount, rounded. */
export const percentOf = (cents: number, basisPoints: number): number => divRound(cents * basisPoints, 10_000);

const AUD = new Intl.NumberFormat('en-AU', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** `$1,234.50`, `-$12.00`: for messages and summaries. */
export function formatCents(cents: number): string {
  const text = `$${AUD.format(Math.abs(cents) / 100)}`;
  return cents < 0 ? `-${text}` : text;
}
