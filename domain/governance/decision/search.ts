import { defineSearch } from '../../../db/search.js';

/**
 * The decision log's full text (migration 032): title (A) above the decision (B) above context and consequences
 * (C); typos and prefixes on the title only. Filters narrow by status, area and a list of ids (awaiting=me).
 */
export const decisionSearch = defineSearch({
  table: 'decisions',
  id: 'decision_id',
  weights: { A: ['title'], B: ['decision'], C: ['context', 'consequences'] },
  fuzzy: ['title'],
  filters: { status: 'status', area: 'area', id: 'decision_id' },
});
