import { defineSearch } from '../../db/search.js';

/**
 * Full text over message bodies (039_messaging.sql declares the same columns): websearch syntax, ranked, with
 * highlights. No trigram tier: bodies run to 16,000 characters. Tombstones have no text, so never match. Ranked
 * among the newest 2,000 matches (messages_recent): a common word in a million messages matches tens of thousands,
 * and chat search wants the recent ones; since/until reach further back.
 */
export const SEARCH_CANDIDATES = 2_000;

export const messageSearch = defineSearch({
  table: 'messages',
  id: 'message_id',
  weights: { A: ['text'] },
  fuzzy: [],
  filters: { channelId: 'channel_id', status: 'status', authorId: 'author_id' },
  ranges: { postedAt: 'posted_at' },
  recent: { column: 'posted_at', candidates: SEARCH_CANDIDATES, day: 'search_day' },
});
