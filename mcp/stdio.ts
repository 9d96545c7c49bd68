import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Pipeline } from '../domain/core/pipeline.js';
import { sessionSelection } from './persona.js';
import { createMcpServer } from './server.js';
import type { Selection } from './toolsets.js';

/*
 * stdio: one process per MCP client, acting as one API key (WOPS_API_KEY) for its whole life. The key is
 * checked once here so a wrong key fails at start with a clear message; every call still re-authenticates
 * through the pipeline, so revoking the key stops the process's calls at once.
 */

export interface StdioOptions {
  pipeline: Pipeline;
  apiKey: string;
  selection: Selection;
  publicUrl?: string;
  /** Serve human decisions (approval.resolve) as tools: MCP_ALLOW_DECISIONS. */
  humanDecisions?: boolean;
  stdin?: NodeJS.ReadableStream & { pause(): unknown };
  stdout?: NodeJS.WritableStream;
}

export interface StdioServer {
  /** Resolves when the client goes away (stdin ends) or close() is called. */
  closed: Promise<void>;
  close(): Promise<void>;
}

export async function serveStdio(opts: StdioOptions): Promise<StdioServer> {
  const principal = await opts.pipeline.principalFor(opts.apiKey);
  const selection = await sessionSelection(opts.pipeline, principal, opts.selection);
  const server = createMcpServer({
    pipeline: opts.pipeline,
    apiKey: opts.apiKey,
    principal,
    selection,
    publicUrl: opts.publicUrl,
    humanDecisions: opts.humanDecisions,
  });
  const stdin = opts.stdin ?? process.stdin;
  const transport = new StdioServerTransport(stdin as typeof process.stdin, (opts.stdout ?? process.stdout) as typeof process.stdout);
  let done!: () => void;
  const closed = new Promise<void>((resolve) => (done = resolve));
  // server.close() closes the transport, whose onclose calls back here: the flag is set before either runs.
  let closing = false;
  const close = async (): Promise<void> => {
    if (closing) return closed;
    closing = true;
    await server.close().finally(done);
  };
  transport.onclose = () => void close();
  await server.connect(transport);

  // When stdin ends (the client sent its last request and closed the pipe), answer what is in flight first.
  const inFlight = new Set<unknown>();
  let drained: (() => void) | undefined;
  const receive = transport.onmessage;
  transport.onmessage = (message) => {
    const m = message as { id?: unknown; method?: unknown };
    if (m.id !== undefined && m.method !== undefined) inFlight.add(m.id);
    receive?.(message);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message) => {
    await send(message);
    const m = message as { id?: unknown; method?: unknown };
    if (m.id !== undefined && m.method === undefined && inFlight.delete(m.id) && inFlight.size === 0) drained?.();
  };
  stdin.once('end', () => {
    if (inFlight.size === 0) void close();
    else drained = () => void close();
  });
  return { closed, close };
}
