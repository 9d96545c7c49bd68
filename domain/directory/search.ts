import { defineSearch, type SearchOptions, type SearchPage } from '../../db/search.js';
import type { Queryable } from '../../db/types.js';

/**
 * The directory's search (db/search.ts): the display name (A) above aliases and the legal name (B) above tags,
 * title, employer name and domain (C); typos and prefixes on the folded name (dir_fold: no accents, honorifics
 * or legal forms). Migration 031 writes these columns and their two GIN indexes out by hand (they read arrays
 * and dir_fold), to the same values wops_search_indexes would give this declaration.
 */
export const partySearch = defineSearch({
  table: 'directory_parties',
  id: 'party_id',
  weights: { A: ['display_name'], B: ['search_names'], C: ['search_terms'] },
  fuzzy: ['name_fold'],
  filters: { kind: 'kind', status: 'status', partyId: 'party_id' },
});

/** The caller's words for the searched columns (search hits' reasons). */
export const SEARCH_FIELDS: Readonly<Record<string, string>> = {
  display_name: 'name',
  search_names: 'aliases',
  search_terms: 'terms',
};

/**
 * The search over parties of one kind, for families whose records stand on them (crm accounts on organisations,
 * contacts on persons). The kind is part of every tier's match, before anything is read or ranked, and
 * organisations have search indexes of their own (068_crm_lists.sql): an organisation's name, which each of its
 * employees' rows also holds (employer name, weight C), finds the organisation without reading the employees.
 */
export function searchPartiesByKind(q: Queryable, kind: 'org' | 'person', opts: Omit<SearchOptions, 'filters' | 'ranges'>): Promise<SearchPage> {
  return partySearch.search(q, { ...opts, filters: { kind } });
}
