import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../domain/core/auth.js';
import type { CallFrame } from '../protocol/frames.js';
import { credential, type McpSession } from './session.js';

/*
 * Resources: the org's ledger (head and recent events) and one approval's status (a template). Read through
 * the pipeline as the session's key, so scopes apply as they do to GET /snapshot, /events and approval.get.
 */

/** Runs a method through the pipeline as the session's key and answers its frame. */
export type RunResourceMethod = (method: string, params: Record<string, unknown>) => Promise<CallFrame>;

/**
 * Resources a family serves beyond the core's (artifacts as `ui://artifacts/art_…` pages): one URI template with one
 * variable, listed and read by running methods as the session's key, so every scope and access rule applies.
 */
export interface McpResourceSource {
  name: string;
  /** e.g. `ui://artifacts/{artifactId}`. */
  template: string;
  title: string;
  description: string;
  mimeType: string;
  /** The key's scope that lists and reads them; without it they are not registered. */
  scope: string;
  list(run: RunResourceMethod): Promise<CallFrame<{ uri: string; name: string; title?: string }[]>>;
  read(run: RunResourceMethod, variables: Record<string, string>): Promise<CallFrame<{ text: string }>>;
}

declare module '../domain/core/family.js' {
  interface Contributions {
    /** Resources the MCP face serves for a family (mcp/resources.ts). */
    mcpResources: McpResourceSource;
  }
}

export const LEDGER_URI = 'wops://ledger';
export const APPROVAL_TEMPLATE = 'wops://approvals/{approvalId}';
/** How many of the latest events the ledger resource carries; page further with the events tool. */
export const RECENT_EVENTS = 50;

const RESOURCE_NOT_FOUND = -32002;
/** Parsed once: stateless HTTP registers the resources on a new server per request. */
const APPROVAL_URI_TEMPLATE = new UriTemplate(APPROVAL_TEMPLATE);

class ReadFailed extends McpError {
  constructor(frameBody: string) {
    const error = (JSON.parse(frameBody) as { error?: { code?: string; message?: string } }).error ?? {};
    const code = error.code === 'NOT_FOUND' ? RESOURCE_NOT_FOUND : error.code === 'BAD_REQUEST' ? ErrorCode.InvalidParams : ErrorCode.InvalidRequest;
    super(code, `${error.code ?? 'INTERNAL'}: ${error.message ?? frameBody}`, { code: error.code });
  }
}

const json = (uri: URL, value: unknown) => ({ contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(value) }] });

async function readOrThrow(session: McpSession, path: string, query: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
  const out = await session.pipeline.read({ path, query, ...credential(session), signal });
  if (out.status !== 200) throw new ReadFailed(out.body);
  return JSON.parse(out.body);
}

async function approvalOrThrow(session: McpSession, approvalId: string): Promise<unknown> {
  const out = await session.pipeline.call({ method: 'approval.get', params: { approvalId }, ...credential(session) });
  if (!out.frame.ok) throw new ReadFailed(out.body);
  return out.frame.result;
}

export function registerResources(mcp: McpServer, session: McpSession, principal: Principal): void {
  mcp.registerResource(
    'ledger',
    LEDGER_URI,
    {
      title: 'Ledger head and recent events',
      description: `The org's hash-chained ledger: head {seq, rowHash} and, of the latest ${RECENT_EVENTS} seqs, the events this key may see (oldest first; as GET /events shows them: private channels, restricted files and calls it cannot read are left out).`,
      mimeType: 'application/json',
    },
    async (uri, extra) => {
      const snapshot = (await readOrThrow(session, 'snapshot', {}, extra.signal)) as { orgId: string; head: { seq: number; rowHash: string } };
      const cursor = Math.max(0, snapshot.head.seq - RECENT_EVENTS);
      const page = (await readOrThrow(session, 'events', { cursor, limit: RECENT_EVENTS }, extra.signal)) as { events: unknown[] };
      return json(uri, { orgId: snapshot.orgId, head: snapshot.head, events: page.events });
    },
  );

  registerContributed(mcp, session, principal);
  if (!principal.scopes.has('approval.request')) return;
  mcp.registerResource(
    'approval',
    new ResourceTemplate(APPROVAL_URI_TEMPLATE, {
      // The pending approvals of the org, newest first: what a human may be asked about now.
      list: async () => {
        const out = await session.pipeline.call({ method: 'approval.list', params: { status: 'pending', limit: 50 }, ...credential(session) });
        if (!out.frame.ok) throw new ReadFailed(out.body);
        const { approvals } = out.frame.result as { approvals: { approvalId: string; subject: { summary: string } }[] };
        return {
          resources: approvals.map((a) => ({
            uri: `wops://approvals/${a.approvalId}`,
            name: a.approvalId,
            description: a.subject.summary,
            mimeType: 'application/json',
          })),
        };
      },
    }),
    {
      title: 'Approval status',
      description: 'One approval: status (pending, approved, rejected, expired), the held call, the inbox url, and once approved the signatureToken.',
      mimeType: 'application/json',
    },
    async (uri, variables) => json(uri, await approvalOrThrow(session, String(variables.approvalId))),
  );
}

const failed = (frame: CallFrame) => new ReadFailed(JSON.stringify(frame));

function registerContributed(mcp: McpServer, session: McpSession, principal: Principal): void {
  const run: RunResourceMethod = async (method, params) => (await session.pipeline.call({ method, params, ...credential(session) })).frame;
  for (const { value: source } of session.pipeline.deps.families.contributions('mcpResources')) {
    if (!principal.scopes.has(source.scope)) continue;
    mcp.registerResource(
      source.name,
      new ResourceTemplate(source.template, {
        list: async () => {
          const frame = await source.list(run);
          if (!frame.ok) throw failed(frame);
          return { resources: frame.result.map((r) => ({ ...r, mimeType: source.mimeType })) };
        },
      }),
      { title: source.title, description: source.description, mimeType: source.mimeType },
      async (uri, variables) => {
        const vars = Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, String(v)]));
        const frame = await source.read(run, vars);
        if (!frame.ok) throw failed(frame);
        return { contents: [{ uri: uri.href, mimeType: source.mimeType, text: frame.result.text }] };
      },
    );
  }
}
