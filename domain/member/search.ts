import { defineSearch } from '../../db/search.js';

/**
 * The member directory's search: name and handle (A) above title (B), typos and prefixes on name and handle.
 * Its indexes are made in 022_members.sql. Team filters pass the team's member ids (principal_id).
 */
export const memberSearch = defineSearch({
  table: 'principals',
  id: 'principal_id',
  weights: { A: ['name', 'handle'], B: ['title'] },
  fuzzy: ['name', 'handle'],
  filters: { status: 'status', kind: 'kind', managerId: 'manager_id', memberId: 'principal_id' },
});
