#!/usr/bin/env node
// Launcher for MCP client configurations: runs the TypeScript stdio entry (cli/mcp.ts) through tsx's
// loader in this same process, so stdin/stdout are the MCP client's pipes. See README "MCP (for LLM agents)".
import { register } from 'tsx/esm/api';

register();
await import('../cli/mcp.ts');
