import { drive } from './drive.js';
import { comments } from './comments.js';
import { docs } from './docs.js';

/**
 * The files family's contracts (docs/families/files.md): the drive here; the doc area (docs.ts) and comments
 * (comments.ts) add their spread lines.
 */
export const files = {
  ...drive,
  ...comments,
  ...docs,
};
