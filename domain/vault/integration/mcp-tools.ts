import type { Contributions } from '../../core/family.js';
import { TOOLSET_MOVED } from './model.js';

/*
 * The `integration.tools` toolset of the MCP face: the caller's remote tools as MCP tools named
 * ext_<integration>__<tool>, with their pinned description and input schema, exactly the tools listAgentTools
 * answers for the caller. A call runs invokeTool as the caller, so its access, rate limit, pin and schema checks,
 * scrubbing and the tool chain all apply; a tool_error (or a timeout, an unreachable server) is an MCP tool error.
 */

type Toolset = Contributions['mcpToolsets'];
/** The fields used of listAgentTools' and invokeTool's results (protocol/methods/integration.ts). */
interface Listed {
  tools: { name: string; integrationId: string; tool: string; description: string; readOnly: boolean; inputSchema: Record<string, unknown> | null }[];
  toolsetVersion: string;
  nextCursor: string | null;
}
interface Invoked {
  callId: string;
  status: string;
  content: Record<string, unknown>[];
  structuredContent: Record<string, unknown> | null;
  truncated: boolean;
  error: string | null;
}

const PREFIX = 'ext_';
/** listAgentTools' largest page. */
const PAGE = 500;

export const integrationTools: Toolset = {
  toolset: 'integration.tools',
  family: 'integration',
  movedTopic: TOOLSET_MOVED,
  async list(run) {
    const tools = [];
    let version = '';
    let cursor: string | null = null;
    do {
      const frame = await run('integration.listAgentTools', { withSchemas: true, limit: PAGE, ...(cursor ? { cursor } : {}) });
      if (!frame.ok) return frame;
      const page = frame.result as Listed;
      version = page.toolsetVersion;
      cursor = page.nextCursor;
      for (const t of page.tools) {
        tools.push({
          name: `${PREFIX}${t.name}`,
          description: t.description,
          inputSchema: t.inputSchema ?? { type: 'object' },
          readOnlyHint: t.readOnly,
          ref: { integrationId: t.integrationId, tool: t.tool },
        });
      }
    } while (cursor);
    return { ok: true, result: { version, tools } };
  },
  async version(run) {
    const frame = await run('integration.toolsetVersion', {});
    return frame.ok ? { ok: true, result: (frame.result as { toolsetVersion: string }).toolsetVersion } : frame;
  },
  async call(run, ref, args) {
    const frame = await run('integration.invokeTool', { integrationId: ref.integrationId, tool: ref.tool, arguments: args });
    if (!frame.ok) return frame;
    const out = frame.result as Invoked;
    // A status other than ok says what happened in words the model reads, after whatever the tool answered.
    const said =
      out.status === 'ok'
        ? []
        : [{ type: 'text', text: `${out.status}: ${out.error ?? 'the remote tool failed'} (call ${out.callId}; nothing is retried for you)` }];
    const truncated = out.truncated ? [{ type: 'text', text: 'The result was over 256 KiB and was cut.' }] : [];
    return {
      ok: true,
      result: {
        content: [...out.content, ...said, ...truncated],
        structuredContent: out.structuredContent ?? undefined,
        isError: out.status !== 'ok',
      },
    };
  },
};
