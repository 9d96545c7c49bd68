import { z } from 'zod';
import { method } from '../contract.js';
import { id, limit, proofFields } from '../schema.js';
import { credentialId, principalRef } from './credential.js';

/**
 * Remote MCP servers agents call through the server (docs/families/runtime.md, Secrets and integrations): Streamable
 * HTTP only, each tool's definition pinned by SHA-256 at connect, the credential put only into the transport's
 * header and scrubbed from results, every call a record in the org's tool chain (GET /ops?source=tools).
 */

export const MAX_TOOLS = 500;
export const MAX_ARGUMENT_BYTES = 64 * 1024;
export const CALL_STATUSES = ['ok', 'tool_error', 'timeout', 'unreachable', 'auth_failed'] as const;

export const integrationId = (description: string) => id('int', description);
const changed = z.boolean().describe('false when it was already so (its event says noop).');

export const Auth = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('none') }),
  z.strictObject({ kind: z.literal('bearer'), credentialId: credentialId('The secret sent as Authorization: Bearer <value>.') }),
  z.strictObject({
    kind: z.literal('header'),
    header: z
      .string()
      .regex(/^[A-Za-z0-9-]{1,64}$/, 'must be an HTTP header name')
      .refine((h) => !['host', 'content-length', 'content-type', 'accept', 'connection'].includes(h.toLowerCase()), 'must not be a header the transport sets')
      .describe('The header carrying the value (e.g. X-Api-Key).'),
    credentialId: credentialId('The secret sent in that header.'),
  }),
]);

export const Integration = z.strictObject({
  id: z.string().describe('int_…'),
  name: z.string(),
  url: z.string(),
  host: z.string(),
  auth: z.strictObject({ kind: z.enum(['none', 'bearer', 'header']), header: z.string().nullable(), credentialId: z.string().nullable() }),
  allowTools: z.array(z.string()).nullable().describe('["*"], tool names, or null: the tools the server marks read-only.'),
  access: z.array(z.string()),
  state: z.enum(['active', 'disconnected']),
  toolsetVersion: z.string(),
  server: z.strictObject({ name: z.string(), version: z.string() }),
  tools: z.strictObject({ listed: z.number().int(), allowed: z.number().int() }),
  connectedAt: z.string(),
  updatedAt: z.string(),
});

const AgentTool = z.strictObject({
  name: z.string().describe('<integration name>__<tool>: unique across the org.'),
  integrationId: z.string(),
  tool: z.string(),
  description: z.string(),
  readOnly: z.boolean(),
  sha256: z.string().describe('SHA-256 of the pinned definition.'),
  inputSchema: z.record(z.string(), z.unknown()).nullable().describe('With withSchemas: the pinned input schema.'),
});

export const integration = {
  connect: method({
    hold: { completion: 'retry', when: 'an agent connects or re-syncs an integration' },
    summary:
      'Connect a remote MCP server (Streamable HTTP, https) or re-sync one (integrationId): the server is asked for its tools before anything is written, and each tool’s definition is pinned by SHA-256. allowTools: * or names (default: the tools it marks read-only).',
    params: z.strictObject({
      integrationId: integrationId('Re-sync this integration (re-pin its tools).').optional(),
      name: z
        .string()
        .regex(/^[a-z][a-z0-9-]{0,39}$/, 'must be 1 to 40 lowercase letters, digits or - (starting with a letter)')
        .describe('Short name; tools are listed as <name>__<tool>.'),
      url: z.string().max(2000, 'must be at most 2000 characters').describe('The server’s MCP endpoint: https, no user or query.'),
      auth: Auth.default({ kind: 'none' }).describe('How it authenticates: none, bearer or header, with a vault secret.'),
      allowTools: z
        .array(z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters'))
        .max(500, 'must be at most 500 names')
        .describe('["*"] for every tool, or tool names; default the read-only ones.')
        .optional(),
      access: z.array(principalRef).max(100, 'must be at most 100 entries').describe('Who may call its tools (default ["*"]).').optional(),
      ...proofFields,
    }),
    result: z.strictObject({ integration: Integration, toolsetVersion: z.string(), changed }),
    events: ['integration.connection.connect'],
    example: { name: 'github', url: 'https://mcp.example.com/mcp', auth: { kind: 'bearer', credentialId: 'cred_0123456789abcdef' } },
  }),
  disconnect: method({
    summary: 'Disconnect an integration: its tools are no longer listed or callable; its secret is kept. Already disconnected: changed:false.',
    params: z.strictObject({ integrationId: integrationId('The integration.') }),
    result: z.strictObject({ integration: Integration, changed }),
    events: ['integration.connection.disconnect'],
    example: { integrationId: 'int_0123456789abcdef' },
  }),
  list: method({
    summary: 'Integrations you may use (admins: all): status, tool counts, and calls and errors in the last 24 hours.',
    params: z.strictObject({
      state: z.enum(['active', 'disconnected']).describe('Only this state (default both).').optional(),
      cursor: z.string().max(64, 'must be at most 64 characters').describe('The nextCursor of the previous page.').optional(),
      limit: limit(500, 50),
    }),
    result: z.strictObject({
      integrations: z.array(Integration.extend({ calls24h: z.number().int(), errors24h: z.number().int() })),
      nextCursor: z.string().nullable(),
    }),
    example: { state: 'active' },
  }),
  listAgentTools: method({
    summary:
      'The remote tools a principal may call (you, or principalId for an admin), named <integration>__<tool>, and the toolsetVersion: refetch only when it moves.',
    params: z.strictObject({
      integrationId: integrationId('Only this integration.').optional(),
      principalId: z
        .string()
        .regex(/^(usr|agt)_[A-Za-z0-9]+$/, 'must be a principal id')
        .describe('Whose tools (admin only; default you).')
        .optional(),
      withSchemas: z.boolean().default(false).describe('Include each tool’s pinned input schema.'),
      cursor: z.string().max(300, 'must be at most 300 characters').describe('The nextCursor of the previous page.').optional(),
      limit: limit(500, 100),
    }),
    result: z.strictObject({ tools: z.array(AgentTool), toolsetVersion: z.string(), nextCursor: z.string().nullable() }),
    example: { withSchemas: true },
  }),
  toolsetVersion: method({
    summary: 'The hash of the remote tools you may call: it moves only when an integration is connected, re-synced or disconnected.',
    params: z.strictObject({}),
    result: z.strictObject({ toolsetVersion: z.string(), tools: z.number().int() }),
    example: {},
  }),
  invokeTool: method({
    openWorld: true,
    summary:
      'Call a remote tool you may call: arguments are checked against its pinned schema; a live definition that no longer matches the pin answers CONFLICT and nothing is sent. The secret goes only into the transport header and is scrubbed from the result (capped at 256 KiB). Status ok, tool_error, timeout, unreachable or auth_failed; 60 calls a minute per integration.',
    params: z.strictObject({
      integrationId: integrationId('The integration.'),
      tool: z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters').describe('The tool’s name on that server.'),
      arguments: z
        .record(z.string(), z.unknown())
        .refine((a) => Buffer.byteLength(JSON.stringify(a), 'utf8') <= MAX_ARGUMENT_BYTES, `must be at most ${MAX_ARGUMENT_BYTES} bytes as JSON`)
        .default({})
        .describe('The tool’s arguments (at most 64 KiB as JSON).'),
    }),
    result: z.strictObject({
      callId: z.string().describe('tcl_…: its record in the tool chain.'),
      status: z.enum(CALL_STATUSES),
      content: z.array(z.record(z.string(), z.unknown())).describe('The tool’s content blocks, scrubbed of the credential.'),
      structuredContent: z.record(z.string(), z.unknown()).nullable(),
      truncated: z.boolean().describe('The result was over 256 KiB and was cut.'),
      error: z.string().nullable().describe('What went wrong, for a status other than ok (scrubbed).'),
    }),
    example: { integrationId: 'int_0123456789abcdef', tool: 'search_issues', arguments: { query: 'is:open label:bug' } },
  }),
};
