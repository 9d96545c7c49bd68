import { family } from '../family.js';
import { receivablesHandlers } from './receivables/index.js';

export { booksReads } from './policy-read.js';

/** The books family, area by area; each area's folder holds its handlers, model and reads. */
export const booksHandlers = family('books', {
  ...receivablesHandlers,
});
