import { family, type Family } from '../core/family.js';
import { create, remove, update } from './handlers.js';
import { sopHoldActs } from './hold-acts.js';
import { list } from './list.js';

/*
 * The sop family (docs/families/knowledge.md): versioned standard operating procedures whose steps name registry
 * methods. Events carry ids, versions, SHA-256s, statuses and counts, never titles or step text.
 */

export const sopHandlers = family('sop', { create, update, delete: remove, list });

/** The sop family, as domain/deployed.ts lists it. */
export const sopFamily: Family = { name: 'sop', methods: sopHandlers, holdActs: sopHoldActs };
