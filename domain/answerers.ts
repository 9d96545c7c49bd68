import type { Answerer } from '../ai-gateway/answerer.js';
import { BOOKS_ANSWERER } from './books/ask/answerer.js';
import { PERSONA_ANSWERER } from './persona/answerer.js';
import { DIRECTORY_ANSWERER } from './directory/ask/answerer.js';

/**
 * Every family's AI answerer, registered with the gateway by the runtime (ai-gateway/answerer.ts). A family
 * that adds ask, summarise, triage, extractAction or rewriteInVoice adds its answerer here; a method not
 * listed is refused by the gateway before any model is called.
 */
export const ANSWERERS: readonly Answerer[] = [BOOKS_ANSWERER, PERSONA_ANSWERER, DIRECTORY_ANSWERER];
