import { family, type Family } from '../core/family.js';
import { designOps } from './design-log.js';
import { getDesignTokens, saveDesignTokens } from './design-tokens.js';
import { getFoundation, getVoice, saveFoundation } from './foundation.js';
import { listVersions, restoreFoundation } from './history.js';
import { brandingHoldActs } from './hold-acts.js';
import { amendTemplate, cloneTemplate, deleteTemplate, exportTemplate, listTemplates } from './library.js';
import { redo, restoreVersion, undo } from './library-history.js';
import { proposeChange } from './proposals.js';
import { amendArtifact, uploadImage } from './images.js';
import { generateImage, regenerateImages } from './generate.js';
import { rewriteInVoice } from './voice-rewrite.js';
import { OUTPUT_RECORD, outputServable } from './outputs.js';
import { renderTemplate } from './render.js';
import { expireOutputs, scheduleOverdueExpiry } from './retention.js';
import { exportKit } from './kit.js';
import { regenerate, regenerateTemplate, regenerateTemplates } from './regenerate.js';

/*
 * The branding family (docs/families/branding.md): the versioned brand foundation (name, logos, DTCG tokens, usage
 * pairs, voice), proposals, the history, the template library, and the design log (domain/branding/design-log.ts)
 * that its R methods that write (the library's changes, undo, redo, restore) record in. settings.getDesignTokens and settings.saveDesignTokens are
 * views of the foundation's tokens, deployed from here.
 */

export const brandingHandlers = new Map([
  ...family('branding', { getFoundation, getVoice, listVersions, saveFoundation, restoreFoundation, proposeChange }),
  ...family('branding', { listTemplates, exportTemplate, amendTemplate, cloneTemplate, deleteTemplate, undo, redo, restoreVersion }),
  ...family('branding', { renderTemplate, exportKit, regenerateTemplate, regenerateTemplates, regenerate }),
  ...family('branding', { uploadImage, amendArtifact, regenerateImages, generateImage, rewriteInVoice }),
  ...family('settings', { getDesignTokens, saveDesignTokens }),
]);

/** The branding family, as domain/deployed.ts lists it. */
export const brandingFamily: Family = {
  name: 'branding',
  methods: brandingHandlers,
  holdActs: brandingHoldActs,
  signedRecords: new Map([[OUTPUT_RECORD, outputServable]]),
  jobs: [expireOutputs],
  startup: [scheduleOverdueExpiry],
  contributes: { opsSources: designOps },
};

export { designLog, designHead } from './design-log.js';
export { commitFoundation } from './commit.js';
export { assetBytes, libraryHasImage } from './assets.js';
/** The scope that reads the brand library (its images among them). */
export const BRAND_READ_SCOPE = 'design.read';
