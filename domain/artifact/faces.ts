import type { Contributions } from '../core/family.js';
import { canReadChannel } from '../messaging/index.js';
import type { LiveFrames } from '../stream/live.js';
import { artifactHtml, toneColours } from './html.js';
import { artifactFor } from './model.js';
import { ARTIFACT_CHANGED } from './wake.js';

/*
 * Artifacts on the other faces: the org stream's `artifact` frame (ids, revision, state, response count) for those
 * who see the artifact, and MCP's `ui://artifacts/art_…` resources, each a self-contained page (html.ts) read
 * through artifact.get as the session's key. Its brand colours come from settings.getDesignTokens when the key may
 * read them (design.read), else the defaults: the host's own style variables come first anyway.
 */

export const artifactFrames: LiveFrames = {
  topic: ARTIFACT_CHANGED,
  event: 'artifact',
  async frame(db, principal, m) {
    try {
      await artifactFor(db, principal.orgId, String(m.artifactId), principal);
    } catch {
      // Not visible to this principal (a draft, a channel it cannot read) or erased: an erasure is told to those
      // who may read the channel, as list updatedAfter shows it.
      const channelId = typeof m.channelId === 'string' ? m.channelId : null;
      if (m.state !== 'erased' || channelId === null || !(await canReadChannel(db, principal.orgId, channelId, principal.id))) return null;
    }
    return { kind: 'artifact.changed', artifactId: m.artifactId, revision: m.revision, state: m.state, responses: m.responses, channelId: m.channelId };
  },
};

export const UI_TEMPLATE = 'ui://artifacts/{artifactId}';
export const MCP_APP_MIME = 'text/html;profile=mcp-app';

/** What the MCP face declares (mcp/resources.ts), named through the extension point: domain does not import mcp. */
export const artifactResources: Contributions['mcpResources'] = {
  name: 'artifact',
  template: UI_TEMPLATE,
  title: 'Artifact',
  description: 'An artifact (card, form, table, chart) as a self-contained MCP App page: the host themes it; its Buttons call artifact_act.',
  mimeType: MCP_APP_MIME,
  scope: 'messaging.read',
  async list(run) {
    const frame = await run('artifact.list', { state: 'posted', limit: 50 });
    if (!frame.ok) return frame;
    const { artifacts } = frame.result as { artifacts: { id: string; title: string | null }[] };
    return { ok: true, result: artifacts.map((a) => ({ uri: `ui://artifacts/${a.id}`, name: a.id, title: a.title ?? a.id })) };
  },
  async read(run, { artifactId }) {
    const frame = await run('artifact.get', { artifactId });
    if (!frame.ok) return frame;
    const tokens = await run('settings.getDesignTokens', {});
    const colours = toneColours(tokens.ok ? (tokens.result as { tokens?: Record<string, unknown> }).tokens : undefined);
    const { artifact } = frame.result as { artifact: Parameters<typeof artifactHtml>[0] };
    return { ok: true, result: { text: artifactHtml(artifact, colours) } };
  },
};
