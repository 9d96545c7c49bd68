import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, readImports, sourceFiles } from '../helpers/imports.js';

/*
 * The layers point down (docs/layout.md): protocol <- db <- ledger <- domain <- gateway / mcp, with the
 * shared services (ai-gateway, mail, blobs) beside domain and never importing it, and cli the composition root. This reads every import of
 * the server's source (static, `export … from`, dynamic `import()`, type-only too) and names each one that
 * points the wrong way.
 */

/** Top-level directories each layer may not import from. */
const FORBIDDEN: Record<string, string[]> = {
  // Reading settings from the environment: below everything, importing nothing of the server.
  config: ['protocol', 'db', 'ledger', 'domain', 'ai-gateway', 'mail', 'blobs', 'web', 'gateway', 'mcp', 'cli'],
  protocol: ['db', 'ledger', 'domain', 'ai-gateway', 'mail', 'blobs', 'web', 'gateway', 'mcp', 'cli'],
  db: ['ledger', 'domain', 'ai-gateway', 'mail', 'blobs', 'web', 'gateway', 'mcp', 'cli'],
  ledger: ['domain', 'ai-gateway', 'mail', 'blobs', 'web', 'gateway', 'mcp', 'cli'],
  'ai-gateway': ['domain', 'web', 'gateway', 'mcp', 'cli'],
  mail: ['domain', 'ai-gateway', 'web', 'gateway', 'mcp', 'cli'],
  blobs: ['domain', 'ai-gateway', 'mail', 'web', 'gateway', 'mcp', 'cli'],
  domain: ['web', 'gateway', 'mcp', 'cli'],
  // The faces stand side by side on domain: neither reaches into the other, nor into the composition root.
  gateway: ['mcp', 'cli'],
  mcp: ['gateway', 'web', 'cli'],
};

/** `from -> to` for every relative import whose target's top-level directory the importer's layer forbids. */
function violations(layer: string, forbidden = FORBIDDEN[layer]): string[] {
  const dir = join(ROOT, layer);
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return [];
  return sourceFiles(dir)
    .flatMap(readImports)
    .filter((i) => forbidden.includes(i.target.split('/')[0]))
    .map((i) => `${i.file} -> ${i.target}`);
}

describe('layers', () => {
  for (const layer of Object.keys(FORBIDDEN)) {
    it(`${layer} imports nothing from ${FORBIDDEN[layer].join(', ')}`, () => {
      expect(violations(layer)).toEqual([]);
    });
  }

  it('the scan finds imports that are there (it cannot pass by seeing nothing)', () => {
    // domain may import ai-gateway; asked to forbid it, the scan must find the ask helper's imports, type-only ones too.
    const found = violations('domain', ['ai-gateway']);
    expect(found).toContain('domain/core/ask.ts -> ai-gateway/gateway.js');
    expect(found).toContain('domain/core/deps.ts -> ai-gateway/providers.js');
    expect(violations('ai-gateway', ['protocol']).some((v) => v.startsWith('ai-gateway/answerer.ts -> protocol/'))).toBe(true);
  });
});
