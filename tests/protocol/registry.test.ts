import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FAMILIES, METHODS, READS, STATIC_READS, isWellFormedMethodName } from '../../protocol/registry.js';
import { SCOPES } from '../../protocol/scopes.js';
import { METHOD_HANDLERS, READ_HANDLERS } from '../../domain/deployed.js';

// The frozen v1 registry parsed from the spec (docs/spec/workspace-operations-api.md); .ci/run keeps it equal to
// the upstream copy when one is beside the repository.
const REGISTRY_JSON = fileURLToPath(new URL('../../docs/spec/registry.json', import.meta.url));

interface SpecMethod {
  name: string;
  family: string;
  scope: string;
  flags: string[];
}
const spec = JSON.parse(readFileSync(REGISTRY_JSON, 'utf8')) as { methods: SpecMethod[]; reads: { path: string; scope: string }[] };
const sortFlags = (f: readonly string[]) => [...f].sort().join('');

describe('registry matches docs/spec/registry.json', () => {
  it('counts: 424 methods and 13 reads, on both sides', () => {
    expect(spec.methods).toHaveLength(424);
    expect(spec.reads).toHaveLength(13);
    expect(METHODS.size).toBe(424);
    expect(READS.size).toBe(13);
  });

  it('the same method names', () => {
    expect([...METHODS.keys()].sort()).toEqual(spec.methods.map((m) => m.name).sort());
  });

  it.each(spec.methods.map((m) => [m.name, m] as const))('%s: family, scope and flags', (name, m) => {
    const ours = METHODS.get(name);
    expect(ours, `${name} in METHODS`).toBeDefined();
    expect(ours!.name).toBe(name);
    expect(ours!.family).toBe(m.family);
    expect(ours!.scope).toBe(m.scope);
    expect(sortFlags(ours!.flags)).toBe(sortFlags(m.flags));
    // The derived booleans agree with the flags.
    expect(ours!.mutating).toBe(m.flags.includes('M'));
    expect(ours!.idempotent).toBe(m.flags.includes('I'));
    expect(ours!.governed).toBe(m.flags.includes('G'));
    expect(ours!.readOnly).toBe(m.flags.includes('R'));
    expect(ours!.preAuth).toBe(m.flags.includes('P'));
  });

  it('the same reads with the same scopes', () => {
    const ours = [...READS.values()].map((r) => `/${r.path} ${r.scope}`).sort();
    expect(ours).toEqual(spec.reads.map((r) => `${r.path} ${r.scope}`).sort());
  });

  it('every method is either mutating or read-only, never both', () => {
    for (const m of METHODS.values()) expect(m.mutating !== m.readOnly, m.name).toBe(true);
  });

  it('only pairing.request is pre-auth', () => {
    expect([...METHODS.values()].filter((m) => m.preAuth).map((m) => m.name)).toEqual(['pairing.request']);
  });

  it('every scope used is one the spec names, and every name is well-formed', () => {
    const scopes = new Set<string>(SCOPES);
    for (const m of METHODS.values()) {
      expect(scopes.has(m.scope), `${m.name} scope ${m.scope}`).toBe(true);
      expect(isWellFormedMethodName(m.name), m.name).toBe(true);
      expect(FAMILIES).toContain(m.family);
    }
    for (const r of [...READS.values(), ...STATIC_READS.values()]) expect(scopes.has(r.scope), r.path).toBe(true);
  });
});

describe('deployed handlers agree with the contract', () => {
  it('at least the foundation methods are deployed', () => {
    for (const name of ['governance.set_decision_rights', 'org.create', 'settings.renameApiKey']) {
      expect(METHOD_HANDLERS.has(name), name).toBe(true);
    }
    expect(READ_HANDLERS.has('events')).toBe(true);
    expect(READ_HANDLERS.has('snapshot')).toBe(true);
  });

  it('every deployed method is in the registry', () => {
    const missing = [...METHOD_HANDLERS.keys()].filter((name) => !METHODS.has(name));
    expect(missing).toEqual([]);
  });

  it('every deployed read is a registry read or a static read', () => {
    const missing = [...READ_HANDLERS.keys()].filter((path) => !READS.has(path) && !STATIC_READS.has(path));
    expect(missing).toEqual([]);
  });

  it.each([...METHOD_HANDLERS.keys()])('%s: its contract example parses with its params schema', (name) => {
    const { contract } = METHOD_HANDLERS.get(name)!;
    const parsed = contract.params.safeParse(contract.example);
    expect(parsed.error?.issues ?? [], `${name} example ${JSON.stringify(contract.example)}`).toEqual([]);
    expect(parsed.success).toBe(true);
    expect(contract.summary.length, `${name} has a summary`).toBeGreaterThan(10);
  });

  it.each([...READ_HANDLERS.keys()])('/%s: its contract example parses with its query schema', (path) => {
    const { contract } = READ_HANDLERS.get(path)!;
    const parsed = contract.query.safeParse(contract.example);
    expect(parsed.error?.issues ?? []).toEqual([]);
    expect(parsed.success).toBe(true);
  });
});
