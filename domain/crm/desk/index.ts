import { holdNextStep, listEscalations, returnEscalation } from './escalations.js';
import { signEscalation } from './sign.js';
import { proposeTerms, updateHeldTerms } from './terms.js';

/* The deal desk's handlers (docs/families/crm.md, The deal desk), spread into the crm family's map. */
export const crmDeskHandlers = { proposeTerms, updateHeldTerms, holdNextStep, signEscalation, returnEscalation, listEscalations };
export { deskHoldActs } from './hold-acts.js';
