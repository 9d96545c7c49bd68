import { emailReads } from './reads.js';
import { emailWrites } from './writes.js';

/** The email family's contracts (docs/families/email.md): its reads and its writes. */
export const email = { ...emailReads, ...emailWrites };

export { emailReads, emailWrites };
export * from './shapes.js';
