import { drive } from './drive.js';
import { comments } from './comments.js';
import { docs } from './docs.js';
import { sheets } from './sheets.js';
import { decks } from './decks.js';
import { ask } from './ask.js';

/**
 * The files family's areas, each an MCP toolset of its own (`files.drive`, `files.docs`): the whole family is more
 * than one desk can list. files.ask is the drive's: it answers from every kind's reads.
 */
export const FILES_AREAS = { drive: { ...drive, ...ask }, comments, docs, sheets, decks } as const;

/** The files family's contracts (docs/families/files.md): every area's. */
export const files = {
  ...FILES_AREAS.drive,
  ...FILES_AREAS.comments,
  ...FILES_AREAS.docs,
  ...FILES_AREAS.sheets,
  ...FILES_AREAS.decks,
};
