import type { Figure } from './types.js';

/*
 * How figures are written in answer text is part of the grounding language (grounding.ts reads `$1,234.56`
 * back to cents), so the gateway owns it rather than borrowing a family's formatter: integer arithmetic,
 * the same text as books' formatCents (a test holds the two together).
 */
const GROUPED = new Intl.NumberFormat('en-AU', { maximumFractionDigits: 0 });

/** `$1,234.56` / `-$12.00` for integer cents. */
export function centsText(cents: number): string {
  const abs = Math.abs(cents);
  const text = `$${GROUPED.format(Math.floor(abs / 100))}.${String(abs % 100).padStart(2, '0')}`;
  return cents < 0 ? `-${text}` : text;
}

/** How a figure is written in answer text: cents as `$1,234.56` / `-$12.00`, counts and days as integers. */
export function renderFigure(f: Pick<Figure, 'value' | 'unit'>): string {
  return f.unit === 'cents' ? centsText(f.value) : String(f.value);
}
