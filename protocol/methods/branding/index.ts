import { brandingAi } from './ai.js';
import { brandingFoundation } from './foundation.js';
import { brandingImages } from './images.js';
import { brandingLibrary } from './library.js';
import { brandingOutput } from './output.js';
import { brandingRegenerate } from './regenerate.js';

/**
 * The branding family's contracts (docs/families/branding.md): the foundation and the templates with their history;
 * images, renders and kits add their own files, and then areas (protocol/methods/areas.ts) once every method has a
 * contract.
 */
export const branding = { ...brandingFoundation, ...brandingLibrary, ...brandingOutput, ...brandingRegenerate, ...brandingImages, ...brandingAi };

export * from './foundation.js';
export * from './library.js';
export * from './output.js';
export * from './regenerate.js';
export * from './images.js';
export { brandingAi, MAX_SEED } from './ai.js';
export { settingsDesignTokens } from './design-tokens.js';
