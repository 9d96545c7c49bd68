import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { referencePages } from '../../cli/reference.js';
import { METHODS } from '../../protocol/registry.js';

/* docs/reference/ is generated from the registry, the deployed contracts and the MCP desks (cli/reference.ts). */

describe('docs/reference', () => {
  for (const page of referencePages()) {
    it(`${page.path} says what the code says (else: npm run cli -- docs-reference, and review the diff)`, () => {
      const onDisk = readFileSync(join(process.cwd(), page.path), 'utf8');
      expect(onDisk, `${page.path} is out of date: run npm run cli -- docs-reference`).toBe(page.text);
    });
  }

  it('lists every registry method once, and the desks list only tools that exist', () => {
    const [methods, desks] = referencePages();
    const rows = methods.text.split('\n').filter((l) => l.startsWith('| `')).map((l) => l.slice(3, l.indexOf('`', 3)));
    for (const name of METHODS.keys()) expect(rows.filter((r) => r === name), name).toHaveLength(1);
    const toolLines = desks.text.split('\n').filter((l) => /^\d+ tools: /.test(l));
    const listed = toolLines.flatMap((l) => [...l.matchAll(/`([a-z]+_[A-Za-z_]+)`/g)].map((m) => m[1]));
    expect(listed.length).toBeGreaterThan(100);
    expect(listed).toContain('board_createTask');
    expect(listed).not.toContain('approval_resolve'); // a human's decision, never an agent's tool by default
  });
});
