import { formatCents } from '../domain/books/money.js';
import type { Figure } from './types.js';

/** How a figure is written in answer text: cents as `$1,234.56` / `-$12.00`, counts and days as integers. */
export function renderFigure(f: Pick<Figure, 'value' | 'unit'>): string {
  return f.unit === 'cents' ? formatCents(f.value) : String(f.value);
}
