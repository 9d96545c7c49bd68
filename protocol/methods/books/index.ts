import { receivables } from './receivables.js';

/** The books family's contracts, area by area (see ../../../shared/design/BOOKS.md). */
export const books = {
  ...receivables,
};
