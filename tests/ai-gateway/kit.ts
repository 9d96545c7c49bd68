import type { Runtime } from '../../domain/deployed.js';
import { createToolbox, type CitingToolbox } from '../../ai-gateway/toolbox.js';
import { BOOKS_ANSWERER } from '../../domain/books/ask/answerer.js';
import type { AskInput, Draft, Provider, ProviderResult, Toolbox } from '../../ai-gateway/types.js';
import type { Queryable } from '../../db/types.js';
import { TestClock } from '../helpers/clock.js';
import { testServer, type TestClient, type TestServer } from '../helpers/harness.js';

/**
 * A toolbox for the org of an API key, as books.ask builds one: the books reads run as that key's principal
 * through the pipeline (scopes, deployment, params, org binding), ledger.events over its org, every result
 * indexed for grounding (`toolbox.records`).
 */
export async function toolboxFor(runtime: Runtime, apiKey: string): Promise<CitingToolbox> {
  const principal = await runtime.pipeline.principalFor(apiKey);
  return createToolbox(
    {
      readAs: (method, params) => runtime.pipeline.readAs(principal, method, params),
      q: runtime.db,
      orgId: principal.orgId,
      scopes: principal.scopes,
    },
    BOOKS_ANSWERER,
  );
}

/** A provider the test swaps per case (the runtime's provider is fixed when it is created). */
export class SwitchProvider implements Provider {
  current: Provider | undefined;
  get name(): string {
    return this.current?.name ?? 'none';
  }
  answer(input: AskInput, tools: Toolbox, signal: AbortSignal): Promise<ProviderResult> {
    if (!this.current) throw new Error('SwitchProvider: no provider set');
    return this.current.answer(input, tools, signal);
  }
}

export interface AskServer extends TestServer {
  clock: TestClock;
  provider: SwitchProvider;
  /** A reader (org.read + every *.read) and a key holding books.read only. */
  reader: { apiKey: string };
  booksOnly: { apiKey: string };
}

/** A test server whose books.ask provider the test sets (`s.provider.current = …`), with a few keys. */
export async function askServer(date = '2026-11-02'): Promise<AskServer> {
  const clock = new TestClock(date);
  const provider = new SwitchProvider();
  const s = await testServer({ clock, aiProvider: provider });
  const reader = await s.client.mint({ tier: 'reader' }, 'reader');
  const booksOnly = await s.client.mint({ scopes: ['books.read'] }, 'books reader');
  return { ...s, clock, provider, reader, booksOnly };
}

/** A sent invoice (GST-inclusive $1,100.00, due in 14 days) to Harbour Cafe. */
export async function sentInvoice(client: TestClient, totalCents = 110000, payeeName = 'Harbour Cafe'): Promise<any> {
  const draft = await client.ok('books.invoiceDraft', { payeeName, description: 'Bookkeeping', totalCents, dueDays: 14 });
  const sent = await client.ok('books.invoiceSend', { id: draft.invoice.id }, { idem: `send-${draft.invoice.id}` });
  return sent.invoice;
}

/** The org's whole AI audit chain in seq order, through GET /ops. */
export async function auditChain(client: TestClient, key?: string): Promise<any[]> {
  const out: any[] = [];
  let cursor = 0;
  for (;;) {
    const page = await client.get('ops', { order: 'asc', cursor, limit: 200 }, { key });
    if (page.status !== 200) throw new Error(`ops: ${page.raw}`);
    out.push(...page.body.records);
    if (page.body.nextCursor === null) return out;
    cursor = page.body.nextCursor;
  }
}

/** The latest audit record. */
export async function lastAudit(client: TestClient): Promise<any> {
  const page = await client.get('ops', { limit: 1 });
  if (page.status !== 200) throw new Error(`ops: ${page.raw}`);
  return page.body.records[0];
}

/**
 * A provider for tests of the gateway around it (audit, budget, HTTP face): it runs the reads it is told to,
 * then hands back the draft `answer` makes of their results, with the usage given. Its name prices it:
 * `openai` with a table model costs money, `local` does not.
 */
export function fakeProvider(opts: {
  name?: string;
  model?: string;
  promptTokens?: number;
  completionTokens?: number;
  reads?: [string, unknown][];
  answer: (results: any[]) => Draft;
}): Provider {
  const model = opts.model ?? 'gpt-4o';
  return {
    name: opts.name ?? 'openai',
    async answer(_input, tools) {
      const results = [];
      for (const [name, params] of opts.reads ?? [['books.invoices', { status: 'AUTHORISED' }]]) results.push(await tools.call(name, params));
      return {
        draft: opts.answer(results),
        usage: {
          modelRequested: model,
          modelAnswered: model,
          promptTokens: opts.promptTokens ?? 1000,
          completionTokens: opts.completionTokens ?? 500,
          retries: [],
        },
      };
    },
  };
}

/** The grounded answer about the first open invoice a books.invoices read returned. */
export function owedAnswer(results: any[]): Draft {
  const inv = results[0].invoices[0];
  return {
    kind: 'answer',
    answer: `${inv.contact.name} owes $1,100.00.`,
    claims: [
      {
        text: `${inv.number} is open.`,
        cites: [{ kind: 'record', id: inv.id }],
        figure: { value: inv.amountDueCents, unit: 'cents', op: 'value', field: 'amountDueCents' },
      },
    ],
  };
}

/** Run fn with the AI audit's append-only trigger off, in one transaction that turns it back on. */
export async function tamperAudit(runtime: Runtime, fn: (q: Queryable) => Promise<void>): Promise<void> {
  await runtime.db.tx(async (q) => {
    await q.query('ALTER TABLE ai_audit DISABLE TRIGGER ai_audit_append_only');
    await fn(q);
    await q.query('ALTER TABLE ai_audit ENABLE TRIGGER ai_audit_append_only');
  });
}
