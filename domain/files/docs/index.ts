import { docRead } from './read.js';
import { docSuggestions, docSuggestResolve } from './suggestions.js';
import { docTabOp } from './tabs.js';
import { docWriteRevision } from './write.js';

/*
 * The doc area of files.* (docs/families/files.md, Docs): read, write by block ops, tabs, suggestions. The doc
 * kind's content (create, duplicate, restore, export) is content.ts, listed in ../kinds.ts.
 */
export const docsHandlers = { docRead, docWriteRevision, docTabOp, docSuggestions, docSuggestResolve };
