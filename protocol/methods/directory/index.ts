import { parties } from './parties.js';
import { listing } from './listing.js';
import { channels } from './channels.js';
import { links } from './links.js';
import { lists } from './lists.js';
import { awareness } from './awareness.js';
import { captures } from './captures.js';
import { merges } from './merges.js';
import { vcard } from './vcard.js';
import { ask } from './ask.js';

/**
 * The directory family's areas: persons and organisations outside the org (parties), their channels, and
 * finding them. Merges, lists, links, awareness and captures add their areas here.
 */
export const DIRECTORY_AREAS = { parties, listing, channels, links, lists, awareness, captures, merges, vcard, ask } as const;

/** The directory family's contracts: every area's. */
export const directory = {
  ...DIRECTORY_AREAS.parties,
  ...DIRECTORY_AREAS.listing,
  ...DIRECTORY_AREAS.channels,
  ...DIRECTORY_AREAS.links,
  ...DIRECTORY_AREAS.lists,
  ...DIRECTORY_AREAS.awareness,
  ...DIRECTORY_AREAS.captures,
  ...DIRECTORY_AREAS.merges,
  ...DIRECTORY_AREAS.vcard,
  ...DIRECTORY_AREAS.ask,
};
