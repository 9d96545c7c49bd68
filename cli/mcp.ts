import { parseArgs } from 'node:util';
import pino from 'pino';
import { ApiError } from '../protocol/errors.js';
import { fromProjectRoot } from '../db/project-root.js';
import { createRuntime } from '../domain/deployed.js';
import { META_TOOL_NAMES } from '../mcp/meta-tools.js';
import { serveStdio } from '../mcp/stdio.js';
import { DESKS, DEFAULT_DESK } from '../mcp/desks.js';
import { parseSelection, SelectionError } from '../mcp/toolsets.js';
import { ENV_HELP, loadConfig } from './config.js';

/*
 * The stdio MCP server's composition root (`npm run mcp`, `bin/wops-mcp.js`). stdout belongs to the MCP
 * protocol: everything else, logs included, goes to stderr.
 */

const HELP = `Usage: npm run mcp -- [options]   (or: wops-mcp [options], tsx cli/mcp.ts [options])

Serves the workspace over MCP on stdin/stdout, as the API key in WOPS_API_KEY.

Options (each also an environment variable; the flag wins):
  --toolsets <a,b,...>      desks, families or family areas (books.payables, directory.merges, …) to list as tools, or all / none
                            WOPS_TOOLSETS (default ${DEFAULT_DESK}: the core tools; the meta-tools reach the rest)
  --read-only               list and allow only read-only tools          WOPS_READ_ONLY=true
  --tools <t1,t2,...>       single tools to list besides the toolsets    WOPS_TOOLS
  --exclude-tools <t1,...>  tools never listed nor callable              WOPS_EXCLUDE_TOOLS
  -h, --help                this text
Tools are named family_method (board.createTask -> board_createTask); either spelling is accepted here.

Desks (a desk whose families are not deployed on this server is refused):
${Object.entries(DESKS)
  .map(([name, d]) => `  ${name.padEnd(16)} ${d.summary}`)
  .join('\n')}

  WOPS_API_KEY            the API key to act as (required)
${ENV_HELP}

With embedded PGlite the data dir is locked to one process: stop the HTTP server first, or point both at
PostgreSQL (DATABASE_URL), or use the HTTP server's /mcp endpoint instead. Without DATA_DIR the stdio server
uses the project's own .data directory, wherever the MCP client starts it. Set PUBLIC_URL to the address
humans open (approval links point there).`;

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      toolsets: { type: 'string' },
      'read-only': { type: 'boolean' },
      tools: { type: 'string' },
      'exclude-tools': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stderr.write(`${HELP}\n`);
    return 0;
  }
  const env = process.env;
  const apiKey = env.WOPS_API_KEY;
  if (!apiKey) {
    process.stderr.write(`error: set WOPS_API_KEY to the API key this MCP server acts as\n\n${HELP}\n`);
    return 2;
  }
  const selection = parseSelection(
    {
      toolsets: values.toolsets ?? env.WOPS_TOOLSETS,
      readOnly: values['read-only'] ?? env.WOPS_READ_ONLY,
      include: values.tools ?? env.WOPS_TOOLS,
      exclude: values['exclude-tools'] ?? env.WOPS_EXCLUDE_TOOLS,
    },
    META_TOOL_NAMES,
  );
  // An MCP client starts this process from any directory: without DATA_DIR, use the project's own ./.data
  // (where `npm start` keeps it), not one in whatever directory the client happened to start in.
  const config = loadConfig({ ...env, DATA_DIR: env.DATA_DIR || fromProjectRoot('.data') });
  const log = pino({ level: env.LOG_LEVEL || 'warn', redact: ['apiKey'] }, pino.destination(2));
  const runtime = await createRuntime({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    pgliteTemplateDir: config.pgliteTemplateDir,
    poolSize: Math.min(config.poolSize, 5),
    config: {
      publicUrl: config.publicUrl,
      holdTtlMs: config.holdTtlMs,
      approvalWaitPollMs: config.approvalWaitPollMs,
      streamPollMs: config.stream.pollMs,
      billingPlans: config.billingPlans,
      livekit: config.livekit,
      vault: config.vault,
    },
    ai: config.ai,
    log,
  });
  let server;
  try {
    server = await serveStdio({ pipeline: runtime.pipeline, apiKey, selection, publicUrl: config.publicUrl, humanDecisions: config.mcp.allowDecisions });
  } catch (err) {
    await runtime.close();
    throw err;
  }
  const stop = () => void server.close();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  log.info({ database: runtime.db.kind }, 'mcp stdio server ready');
  await server.closed;
  await runtime.close();
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: Error) => {
    const known = err instanceof ApiError || err instanceof SelectionError || (err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION';
    process.stderr.write(`error: ${err instanceof ApiError ? `${err.code}: ` : ''}${err.message}\n`);
    if (!known) process.stderr.write(`${err.stack ?? ''}\n`);
    process.exitCode = known ? 2 : 1;
  },
);
