import type { z } from 'zod';

/** What the contract says about one method beyond its registry entry: its shapes and an example call. */
export interface MethodContract<P extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  /** One or two sentences: what the call does, in the words a caller needs. */
  summary: string;
  params: P;
  result?: R;
  /** A valid params object (checked by tests). */
  example: z.input<P>;
  /**
   * The ledger event kinds a successful call appends, one per call (protocol/events.ts has the grammar): every kind
   * the handler may emit, and nothing for an R method. A signature act's `<family>.signature.hold` follows from
   * `hold` and is not listed. The pipeline refuses to append a kind not declared here.
   */
  events?: readonly string[];
  /**
   * Top-level result fields that carry a secret shown once (a minted API key). They never reach the database:
   * a keyed call's stored result is sealed under the caller's own API key, and a replay that cannot open it
   * gets these fields null plus `secretWithheld`, which ends with `ifLost` ({field} is that result field).
   * Each field must accept null in `result`, which must also allow `secretWithheld` (a string).
   */
  secrets?: { fields: readonly string[]; ifLost: string };
  /**
   * A signature act (the signature law): what a call without proof does when it holds for a human. Declared here
   * once: the handler may hold because of it, the pipeline refuses a hold of another completion, and MCP's tool
   * descriptions and describe_method say it in words generated from it.
   */
  hold?: HoldDeclaration;
  /**
   * A params field by which the caller names the act (messaging.send's idempotencyId, a comment's clientMsgId):
   * the same value again answers the earlier result with `replayed: true` in it and does nothing again. The
   * result schema must allow `replayed` (protocol/schema.ts replayedField).
   */
  dedupeBy?: string;
  /**
   * Why the MCP face does not serve this method: a secret value in its params or result would enter the model's
   * context and its provider's logs (and an MCP-derived idempotency key would hash it). MCP neither lists nor calls
   * it, and describe_method answers with this reason; HTTP serves it as any method. Its idempotency rows keep an
   * HMAC of the params under the instance secret, never a plain hash a short secret could be guessed from.
   */
  notOverMcp?: string;
  /**
   * Over MCP, a tool for an MCP App's page, not for the model (MCP Apps `_meta.ui.visibility: ["app"]`): hosts leave it
   * out of the model's tools and let the page call it over the same connection; invoke_write refuses it. What the page
   * calls it for and what the model does instead, for describe_method and the listing. HTTP serves it as any method.
   */
  mcpAppOnly?: string;
  /**
   * An R method that writes (the registry keeps it R: no ledger event). The pipeline runs it in one transaction that
   * appends exactly one record to its handler's write log, a hash chain beside the ledger (HandlerCtx.record), and
   * replays it by the `idempotencyId` its params must carry (R ignores x-idempotency-key): the same params again
   * answer the stored result, other params CONFLICT. MCP lists it as a write, hidden in read-only sessions.
   */
  writes?: true;
  /**
   * An R method that acts on the world outside the server (integration.invokeTool calls a remote tool): MCP marks it
   * openWorldHint and not read-only, so read-only sessions do not list it and clients ask before calling it.
   */
  openWorld?: true;
}

/** How a signature act holds: MethodContract.hold. */
export interface HoldDeclaration {
  /**
   * retry: the hold names an approval to file; once a human approves it, the caller calls again with its proof.
   * release: the server files the approval as it holds, and a human's approve runs the act in that decision.
   */
  completion: 'retry' | 'release';
  /** When it holds, completing "It holds for a human when …" (an agent's call, a step 2 or 3); omitted: every call without proof. */
  when?: string;
}

/**
 * A signature act's class is its method's name in snake case (books.payrollSign -> books.payroll_sign), so an
 * action class names at most one method: approval.request can tell a class that belongs to a method.
 */
export const actionClassOf = (method: string): string => method.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
export const methodOfClass = (actionClass: string): string => actionClass.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

export function method<P extends z.ZodType, R extends z.ZodType>(c: MethodContract<P, R>): MethodContract<P, R> {
  return c;
}

/** Contract of a GET read: its query schema and its payload. */
export interface ReadContract<Q extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  summary: string;
  query: Q;
  result?: R;
  example: z.input<Q>;
  /**
   * The read answers bytes of this type instead of a JSON payload (a vCard file, an image), or a redirect to
   * them: the HTTP face sends them as they are; MCP does not offer it as a tool.
   */
  media?: { type: string; description: string; redirects?: string };
}

export function read<Q extends z.ZodType, R extends z.ZodType>(c: ReadContract<Q, R>): ReadContract<Q, R> {
  return c;
}
