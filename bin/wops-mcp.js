#!/usr/bin/env node
// Launcher for MCP client configurations: runs the compiled stdio entry (dist/cli/mcp.js) in this same process,
// so stdin/stdout are the MCP client's pipes; builds dist/ first when it is missing or older than the sources
// (messages on stderr). See docs/mcp.md.
import { ensureBuilt } from './build.js';

try {
  await ensureBuilt();
} catch (err) {
  process.stderr.write(`error: ${err.message}\n`);
  process.exit(1);
}
process.setSourceMapsEnabled(true);
await import('../dist/cli/mcp.js');
