import { family, type Family } from '../core/family.js';
import { append } from './append.js';
import { invalidate, replace, rewrite } from './corrections.js';
import { knowledgeHoldActs } from './hold-acts.js';
import { eraseQuery, QUERY_RETENTION_MS, search } from './search.js';
import { backfillEmbeddings, embedEntry } from './vectors.js';

/*
 * The knowledge family (docs/families/knowledge.md): sourced entries with validity, explicit corrections, and
 * searches that record what they served, by words or, with embeddings configured, by meaning too (vectors.ts). Its events carry ids, revisions, counts and codes, never bodies, quotes
 * or query texts.
 */

export const knowledgeHandlers = family('knowledge', { append, search, invalidate, replace, rewrite });

/** The knowledge family, as domain/deployed.ts lists it. */
export const knowledgeFamily: Family = {
  name: 'knowledge',
  methods: knowledgeHandlers,
  jobs: [eraseQuery, embedEntry],
  startup: [backfillEmbeddings],
  holdActs: knowledgeHoldActs,
  config: { knowledgeQueryRetentionMs: QUERY_RETENTION_MS },
};

export { entrySearch } from './search.js';
/** Unverified entries another family appends inside its own act, without a knowledge event (meetings' decisions). */
export { appendUnverifiedEntry, type QuietCtx, type QuietEntry } from './quiet.js';
