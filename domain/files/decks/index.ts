import { deckRead } from './read.js';
import { deckWriteSlides } from './write.js';

/*
 * The deck area of files.* (docs/families/files.md, Decks): read and write by slide ops. The deck kind's content (create,
 * duplicate, restore, export, purge) is content.ts, for ../kinds.ts to list.
 */
export const deckHandlers = { deckRead, deckWriteSlides };
export { deckContent } from './content.js';
