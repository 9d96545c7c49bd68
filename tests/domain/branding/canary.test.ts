import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryServer, type CanaryServer } from '../../helpers/canary.js';
import { fuzzAtRows, anyValue, oddStrings } from '../../helpers/fuzz.js';
import { PACKAGE, TOKENS } from './kit.js';

/*
 * Redaction for branding: a canary in every free-text field of the foundation (name, token values and descriptions,
 * voice tone, rules, avoided terms and examples, a proposal's rationale) shows in no event and no log line; one in a
 * template's name, texts and alt text shows in no design record either (records hold ids, versions, counts, hashes);
 * the caller gets its words back. Then the methods fuzzed at real rows: never a 5xx.
 */

const CANARY = 'Quokka-Canary-5521';
let s: CanaryServer;
beforeAll(async () => {
  s = await canaryServer();
});
afterAll(() => s.close());

describe('branding redaction canary and fuzz', () => {
  it('no token value, name, voice text or rationale in any event or log line', async () => {
    const call = async (method: string, params: object) => {
      const res = await s.client.rpc(method, params);
      expect(res.body.ok, `${method}: ${res.raw.slice(0, 300)}`).toBe(true);
      return res.body.result;
    };
    const tokens = { ...TOKENS, font: { body: { $type: 'fontFamily', $value: [`${CANARY} Sans`], $description: `Body ${CANARY}` } } };
    const voice = {
      tone: `Tone ${CANARY}`,
      rules: [{ text: `Rule ${CANARY}`, avoid: [`avoid-${CANARY}`] }],
      examples: [{ text: `Example ${CANARY}`, channel: 'web' }],
    };
    const saved = await call('branding.saveFoundation', { baseVersion: 0, patch: { name: `Name ${CANARY}`, tokens, voice } });
    expect(saved.foundation.voice.tone).toBe(`Tone ${CANARY}`);
    await call('settings.saveDesignTokens', { ifVersion: 1, tokens: { ...tokens, extra: { $type: 'color', c: { $value: '#123456', $description: CANARY } } } });
    await call('branding.proposeChange', { baseVersion: 2, patch: { voice: { tone: `New ${CANARY}` } }, rationale: `Because ${CANARY}` });
    await call('branding.restoreFoundation', { version: 1, baseVersion: 2 });
    expect(JSON.stringify(await call('branding.getVoice', { format: 'prompt' }))).toContain(`Rule ${CANARY}`);
    expect(JSON.stringify(await call('branding.getFoundation', {}))).toContain(`Because ${CANARY}`);
    const ledger = await s.ledgerText();
    for (const kind of ['branding.foundation.save', 'settings.tokens.save', 'branding.proposal.create', 'branding.foundation.restore'])
      expect(ledger).toContain(kind);
    expect(ledger).not.toContain(CANARY);
    expect(ledger).not.toContain('#0b5cad');
    expect(s.logs()).not.toContain(CANARY);
  });

  it('no template name or text in any design record, event or log line', async () => {
    const call = async (method: string, params: object) => {
      const res = await s.client.rpc(method, params);
      expect(res.body.ok, `${method}: ${res.raw.slice(0, 300)}`).toBe(true);
      return res.body.result;
    };
    const body = {
      ...PACKAGE.template.body,
      children: [
        { type: 'text', text: `Hello ${CANARY} {{headline}}` },
        { type: 'image', src: 'img_0123456789abcdef', alt: `Alt ${CANARY}` },
      ],
    };
    const pkg = { ...PACKAGE, template: { ...PACKAGE.template, name: `Name ${CANARY}`, body } };
    const { template } = await call('branding.cloneTemplate', { package: pkg, idempotencyId: `clone ${CANARY}` });
    expect(template.name).toBe(`Name ${CANARY}`);
    const amended = await call('branding.amendTemplate', { templateId: template.id, baseRevision: 1, name: `Renamed ${CANARY}`, idempotencyId: 'c-amend' });
    await call('branding.deleteTemplate', { templateId: template.id, idempotencyId: 'c-delete' });
    await call('branding.undo', { version: amended.version + 1, idempotencyId: 'c-undo' });
    expect(JSON.stringify(await call('branding.exportTemplate', { templateId: template.id }))).toContain(`Hello ${CANARY}`);
    const design = (await s.client.get('ops', { source: 'design', order: 'asc' })).body;
    expect(design.records).toHaveLength(4);
    expect(design.records[1].record.payload).toMatchObject({ templateId: template.id, baseRevision: 1, nodes: 3, fields: 2, items: 1 });
    expect(JSON.stringify(design)).not.toContain(CANARY);
    expect(await s.ledgerText()).not.toContain(CANARY);
    expect(s.logs()).not.toContain(CANARY);
  });

  it('fuzzed at real rows: never a 5xx, every refusal a well-formed frame', async () => {
    const proposal = (await s.client.rpc('branding.getFoundation', {})).body.result.proposals[0];
    const templateId = (await s.client.rpc('branding.listTemplates', {})).body.result.templates[0].id as string;
    const values = anyValue(oddStrings('bpr_0123456789abcdef', templateId, '{color.text}', '{color.a}', '#fff', '{{headline}}', '{{#x}}'));
    const keys = [s.org.adminKey];
    for (const [method, extra] of [
      ['branding.getFoundation', ['version']],
      ['branding.getVoice', ['format']],
      ['branding.listVersions', ['scope', 'itemId', 'cursor', 'limit']],
      ['branding.saveFoundation', ['proposalId', 'decision', 'approvalId']],
      ['branding.restoreFoundation', []],
      ['branding.proposeChange', []],
      ['settings.getDesignTokens', []],
      ['settings.saveDesignTokens', []],
      ['branding.listTemplates', ['kind', 'query', 'includeDeleted', 'cursor', 'limit']],
      ['branding.exportTemplate', ['revision']],
      ['branding.amendTemplate', ['body', 'fields', 'name']],
      ['branding.cloneTemplate', ['package', 'name']],
      ['branding.deleteTemplate', []],
      ['branding.undo', []],
      ['branding.redo', []],
      ['branding.restoreVersion', []],
    ] as const) {
      const example = s.runtime.pipeline.handlers.get(method)!.contract.example;
      await fuzzAtRows(method, {
        client: s.client,
        example,
        ids: { proposalId: proposal?.id ?? 'bpr_x', templateId },
        fields: [...extra, 'unknown'],
        keys,
        values,
        numRuns: 15,
      });
    }
  });
});
