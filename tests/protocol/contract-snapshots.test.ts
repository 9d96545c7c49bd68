import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../protocol/openapi.js';
import { METHODS } from '../../protocol/registry.js';
import { METHOD_HANDLERS, READ_HANDLERS } from '../../domain/deployed.js';
import { buildCatalog, readFamily } from '../../mcp/catalog.js';
import { DESKS } from '../../mcp/desks.js';

/*
 * The wire contract as files: every method's and read's OpenAPI operation and MCP tool definition, one file per
 * family under tests/protocol/snapshots/, the shared components and the desks apart. A change to a request or
 * result shape, an error code, a summary or a tool listing shows here as a diff to review; accept an intended one
 * with `npx vitest run tests/protocol/contract-snapshots.test.ts -u`. Taken before the families became
 * descriptors (issue 28) so that reshaping the modules provably changes nothing on the wire.
 */

type Json = Record<string, any>;

const doc = buildOpenApi({ serverUrl: '/', methods: METHOD_HANDLERS, reads: READ_HANDLERS });
const catalog = buildCatalog(METHOD_HANDLERS, READ_HANDLERS);

/** The family an OpenAPI path belongs to: a method's, a read's, or `faces` for the non-RPC routes. */
function pathFamily(path: string): string {
  const rest = path.replace(/^\/api\/v1\//, '');
  const spec = METHODS.get(rest);
  if (spec) return spec.family;
  return rest === path ? 'faces' : readFamily(rest);
}

function byFamily(): Map<string, Json> {
  const out = new Map<string, Json>();
  const slot = (family: string) => {
    let s = out.get(family);
    if (!s) out.set(family, (s = { openapi: {}, mcp: {} }));
    return s;
  };
  for (const [path, ops] of Object.entries(doc.paths as Json)) slot(pathFamily(path)).openapi[path] = ops;
  for (const e of catalog.entries) slot(e.family).mcp[e.tool] = { target: e.target, toolsets: e.toolsets, definition: e.definition };
  return out;
}

const pretty = (value: unknown) => `${JSON.stringify(value, null, 1)}\n`;

describe('the wire contract matches its snapshots', () => {
  for (const [family, content] of [...byFamily()].sort(([a], [b]) => a.localeCompare(b))) {
    it(`${family}: OpenAPI operations and MCP tools`, async () => {
      await expect(pretty(content)).toMatchFileSnapshot(`snapshots/${family}.json`);
    });
  }

  it('the document around the paths: info, tags, shared components', async () => {
    const { paths: _paths, ...rest } = doc;
    await expect(pretty(rest)).toMatchFileSnapshot('snapshots/_document.json');
  });

  it('the MCP desks', async () => {
    await expect(pretty(DESKS)).toMatchFileSnapshot('snapshots/_desks.json');
  });
});
