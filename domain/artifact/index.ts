import { family, reads, type Family } from '../core/family.js';
import { artifactEmbeds } from './embeds.js';
import { artifactFrames, artifactResources } from './faces.js';
import { artifactGetReads, catalog, get, list } from './reads.js';
import { act, create, patch } from './writes.js';

/*
 * The artifact family (docs/families/artifact.md): cards, forms, tables and charts from a fixed catalog, drafted by
 * their author, posted in a message (messaging.send artifactIds, through messaging's messageEmbeds), answered by
 * those who see them (act) and erased with their message. Its writes record in branding's design log; changes reach
 * get's long-poll, the org stream (liveFrames) and MCP (`ui://artifacts/…`, mcpResources) through the notifier.
 */

export const artifactHandlers = family('artifact', { catalog, create, patch, act, get, list });

/** The artifact family, as domain/deployed.ts lists it. */
export const artifactFamily: Family = {
  name: 'artifact',
  methods: artifactHandlers,
  reads: reads(artifactGetReads),
  contributes: { messageEmbeds: artifactEmbeds, liveFrames: artifactFrames, mcpResources: artifactResources },
};
