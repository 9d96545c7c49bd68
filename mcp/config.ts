import { envBool } from '../config/env.js';

/** MCP settings an operator chooses, read once from the environment by the CLI (never from a request). */
export interface McpConfig {
  /** List and serve tools that record a human's decision (approval.resolve) over MCP. Default false. */
  allowDecisions: boolean;
  /** Browser origins allowed to call /mcp beside the server's own (PUBLIC_URL's); no Origin header is always allowed. */
  allowedOrigins: string[];
}

export const MCP_ENV_HELP = `MCP (/mcp over HTTP, and npm run mcp over stdio):
  MCP_ALLOW_DECISIONS   true: serve approval.resolve (a human's decision) as an MCP tool to keys that hold
                        approval.decide (default false: humans decide in the inbox or over HTTP, never through
                        an LLM's session)
  MCP_ALLOWED_ORIGINS   browser origins, comma-separated (https://app.example.com), allowed to call /mcp beside
                        PUBLIC_URL's own; any other Origin is refused with 403 (DNS rebinding); clients that send
                        no Origin (SDKs, CLIs) are unaffected`;

export function loadMcpConfig(env: NodeJS.ProcessEnv): McpConfig {
  const origins = (env.MCP_ALLOWED_ORIGINS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const o of origins) {
    let url: URL | undefined;
    try {
      url = new URL(o);
    } catch {
      url = undefined;
    }
    if (!url || url.origin !== o.replace(/\/$/, '') || !/^https?:$/.test(url.protocol)) {
      throw new Error(`MCP_ALLOWED_ORIGINS: ${JSON.stringify(o)} is not an origin (scheme://host[:port], nothing after it)`);
    }
  }
  return {
    allowDecisions: envBool(env, 'MCP_ALLOW_DECISIONS'),
    allowedOrigins: origins.map((o) => o.replace(/\/$/, '')),
  };
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The origins /mcp accepts: PUBLIC_URL's, the configured ones, and, when PUBLIC_URL is a loopback address, the
 * same port on the other loopback names. The request's Host header is never trusted for this: under DNS
 * rebinding the attacker's name is the Host.
 */
export function acceptedOrigins(publicUrl: string, configured: readonly string[]): Set<string> {
  const own = new URL(publicUrl);
  const accepted = new Set([own.origin, ...configured]);
  if (LOOPBACK.has(own.hostname)) for (const host of LOOPBACK) accepted.add(`${own.protocol}//${host}${own.port ? `:${own.port}` : ''}`);
  return accepted;
}
