import { defineSearch } from '../../db/search.js';

/**
 * Board items' search: title (A) above description (B), typos and prefixes on the title. Its indexes are made in
 * 017_search.sql. No board method of the v1 contract takes `q` yet, so no handler calls it: a list that gains `q`
 * uses this declaration.
 */
export const boardTaskSearch = defineSearch({
  table: 'board_tasks',
  id: 'task_id',
  weights: { A: ['title'], B: ['description'] },
  fuzzy: ['title'],
  filters: { type: 'type', col: 'col', workstreamId: 'workstream_id', assignee: 'assignee' },
});
