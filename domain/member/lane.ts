import type { Principal } from '../auth.js';

/**
 * The agent lane (people.md section 3): an agent caller granting access, committing money or writing a mandate
 * gets a hold for a human; a human caller runs the act directly. Every people family asks this one question, so
 * a principal exempt from holds (the SCIM provisioner: its humans decided in the identity provider) is added here
 * once.
 */
export function mustHold(principal: Principal): boolean {
  return principal.kind === 'agent' && !isScimProvisioner(principal);
}

/** A caller with a key of tier scim: the identity provider's provisioner (gateway/scim). */
export const isScimProvisioner = (principal: Principal): boolean => principal.tier === 'scim';
