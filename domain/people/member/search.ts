import { defineSearch } from '../../../db/search.js';

/**
 * The member directory's search: name and handle (A) above title (B) above team names and expertise tags (C,
 * directory_terms, kept by terms.ts); typos and prefixes on name and handle only. Its indexes are made in
 * 029_directory_terms.sql. Team filters pass the team's member ids (principal_id).
 */
export const memberSearch = defineSearch({
  table: 'principals',
  id: 'principal_id',
  weights: { A: ['name', 'handle'], B: ['title'], C: ['directory_terms'] },
  fuzzy: ['name', 'handle'],
  filters: { status: 'status', kind: 'kind', managerId: 'manager_id', memberId: 'principal_id' },
});
