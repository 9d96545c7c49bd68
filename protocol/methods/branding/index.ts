import { brandingFoundation } from './foundation.js';
import { brandingLibrary } from './library.js';

/**
 * The branding family's contracts (docs/families/branding.md): the foundation and the templates with their history;
 * images, renders and kits add their own files, and then areas (protocol/methods/areas.ts) once every method has a
 * contract.
 */
export const branding = { ...brandingFoundation, ...brandingLibrary };

export * from './foundation.js';
export * from './library.js';
export { settingsDesignTokens } from './design-tokens.js';
