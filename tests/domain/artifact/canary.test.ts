import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryServer, expectNoCanary, type CanaryServer } from '../../helpers/canary.js';
import { anyValue, fuzzAtRows, oddStrings } from '../../helpers/fuzz.js';
import { person, type Person } from '../../helpers/people.js';

/*
 * Redaction for artifacts: a canary in the title, every text and label, the data, the fallback text and a submitted
 * value shows in no event, log line, design record or idempotency row (the writes answer heads); the author and the
 * actor read it back through get. Over MCP the artifact is a ui:// page where a hostile title or text is text.
 * Then every method fuzzed at real rows: never a 5xx.
 */

const CANARY = 'Wombat-Canary-7731';
let s: CanaryServer;
let mia: Person;
let channelId: string;
beforeAll(async () => {
  s = await canaryServer();
  mia = await person(s, 'Mia', { tier: 'member' });
  channelId = (await s.client.ok<any>('channel.create', { name: 'canary-art', memberIds: [mia.id] })).channel.id;
});
afterAll(() => s.close());

const call = async (method: string, params: object, key?: string) => {
  const res = await s.client.rpc(method, params, { key });
  expect(res.body.ok, `${method}: ${res.raw.slice(0, 300)}`).toBe(true);
  return res.body.result;
};

const HOSTILE = `<script>alert("${CANARY}")</script><img src=x onerror=alert(1)>`;

let made = 0;
async function form(title: string) {
  const components = [
    { id: 'root', type: 'Card', title: `Card ${CANARY}`, children: ['h', 't', 'kv', 'tab', 'amount', 'note', 'go'] },
    { id: 'h', type: 'Heading', text: { path: '/heading' } },
    { id: 't', type: 'Text', markdown: `Text ${HOSTILE} **bold** [link](https://example.com)` },
    { id: 'kv', type: 'KeyValue', items: [{ label: `Label ${CANARY}`, value: `Value ${CANARY}` }] },
    { id: 'tab', type: 'Table', columns: [{ key: 'a', label: `Col ${CANARY}` }], rows: { path: '/rows' } },
    { id: 'amount', type: 'NumberInput', name: 'amount', label: `Amount ${CANARY}`, min: 1 },
    { id: 'note', type: 'TextInput', name: 'note', label: 'Note' },
    { id: 'go', type: 'Button', actionId: 'go', label: `Go ${CANARY}` },
  ];
  const data = { heading: `Heading ${CANARY}`, rows: [{ a: `Row ${CANARY}` }] };
  const actions = [{ actionId: 'go', label: `Action ${CANARY}`, inputs: ['amount', 'note'] }];
  return call('artifact.create', { idempotencyId: `create ${++made}`, title, components, data, actions, fallbackText: `Fallback ${CANARY}` });
}

describe('artifact redaction canary, MCP pages and fuzz', () => {
  it('no title, text, data or value in any event, log line, design record or idempotency row', async () => {
    const { artifact } = await form(`Title ${CANARY}`);
    await call('messaging.send', { channelId, idempotencyId: 'canary-send', text: 'look', artifactIds: [artifact.id] });
    await call('artifact.patch', {
      artifactId: artifact.id,
      baseRevision: 1,
      idempotencyId: 'canary-patch',
      set: [{ path: '/heading', value: `New ${CANARY}` }],
    });
    await call(
      'artifact.act',
      { artifactId: artifact.id, actionId: 'go', revision: 2, values: { amount: 3, note: `Note ${CANARY}` }, idempotencyId: 'canary-act' },
      mia.key,
    );
    const got = JSON.stringify(await call('artifact.get', { artifactId: artifact.id }));
    expect(got).toContain(`Note ${CANARY}`);
    expect(got).toContain(`New ${CANARY}`);
    const design = (await s.client.get('ops', { source: 'design', order: 'asc' })).body;
    expect(design.records.map((r: any) => r.record.kind)).toEqual(['artifact.surface.create', 'artifact.surface.patch', 'artifact.response.submit']);
    expectNoCanary(CANARY, {
      ledger: await s.ledgerText(),
      logs: s.logs(),
      design: JSON.stringify(design),
      idempotency: await s.idempotencyText(),
    });
  });

  it('MCP lists and reads artifacts as ui:// pages: self-contained, escaped, themed by variables with brand fallbacks', async () => {
    const { artifact } = await form(`${HOSTILE} title`);
    await call('messaging.send', { channelId, idempotencyId: 'canary-send-2', text: 'look', artifactIds: [artifact.id] });
    const mcp = await s.mcp(mia.key);
    const listed = await mcp.listResources();
    const page = listed.resources.find((r) => r.uri === `ui://artifacts/${artifact.id}`);
    expect(page).toMatchObject({ mimeType: 'text/html;profile=mcp-app' });
    const read = await mcp.readResource({ uri: `ui://artifacts/${artifact.id}` });
    const html = String((read.contents[0] as { text: string }).text);
    expect(read.contents[0].mimeType).toBe('text/html;profile=mcp-app');
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;script&gt;alert(&quot;');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<a href="https://example.com"');
    expect(html).not.toMatch(/<script[^>]+src=/);
    expect(html).not.toMatch(/https?:\/\/(?!example\.com)[^"\s)]+/);
    expect(html).toMatch(/--tone-brand: var\(--color-brand-primary, #[0-9a-fA-F]{3,8}\)/);
    expect(html).toContain(`Row ${CANARY}`);
    expect(html).toMatch(/Content-Security-Policy" content="default-src 'none'/);
    // Another org's key finds nothing.
    await expect(mcp.readResource({ uri: 'ui://artifacts/art_doesnotexist0000' })).rejects.toThrow(/NOT_FOUND/);
    // The tools are listed on the artifacts desk; the writes are not read-only.
    const { tools } = await mcp.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ['artifact_create', 'artifact_patch', 'artifact_act']) expect(byName.get(name)?.annotations?.readOnlyHint, name).toBe(false);
    expect(byName.get('artifact_get')?.annotations?.readOnlyHint).toBe(true);
  });

  it('fuzzed at real rows: never a 5xx, every refusal a well-formed frame', async () => {
    const { artifact } = await form('Fuzz');
    await call('messaging.send', { channelId, idempotencyId: 'canary-send-3', text: 'look', artifactIds: [artifact.id] });
    const values = anyValue(oddStrings(artifact.id, '/heading', 'go', 'Button', 'Stack', '{"path":"/x"}'));
    for (const [method, extra] of [
      ['artifact.catalog', []],
      ['artifact.create', ['data', 'expiresAt', 'components', 'actions']],
      ['artifact.patch', ['set', 'components', 'state', 'actions']],
      ['artifact.act', ['values']],
      ['artifact.get', ['responsesAfter']],
      ['artifact.list', ['channelId', 'mine', 'state', 'pending', 'updatedAfter', 'cursor', 'limit']],
    ] as const) {
      const example = s.runtime.pipeline.handlers.get(method)!.contract.example;
      // No long-poll: a fuzzed waitMs would only wait.
      const { waitMs: _wait, ...patched } = example as Record<string, unknown>;
      await fuzzAtRows(method, {
        client: s.client,
        example: patched,
        ids: { artifactId: artifact.id, channelId },
        fields: [...extra, 'unknown'],
        keys: [s.org.adminKey, mia.key],
        values,
        numRuns: 15,
      });
    }
  });
});
