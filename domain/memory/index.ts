import { family, type Family } from '../core/family.js';
import { mergeAmendment, proposeAmendment } from './amendments.js';
import { author, list } from './blocks.js';
import { memoryHoldActs } from './hold-acts.js';

/*
 * The memory family (docs/families/knowledge.md): blocks agents load into their prompts, changed by their owners or
 * by amendments the owner (or an admin) merges. Events carry ids, versions and SHA-256s, never values or reasons.
 */

export const memoryHandlers = family('memory', { author, list, proposeAmendment, mergeAmendment });

/** The memory family, as domain/deployed.ts lists it. */
export const memoryFamily: Family = { name: 'memory', methods: memoryHandlers, holdActs: memoryHoldActs };
