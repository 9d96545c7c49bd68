import { describe, expect } from 'vitest';
import { it } from '../../helpers/fixtures.js';
import { connectInMemory, structured, toolError } from '../../mcp/fixtures.js';
import { ok } from '../../helpers/calls.js';

/* The drive over MCP (the files desk): an agent files, finds, downloads; a viewer's write and an email share are refused or held. */

describe('files over MCP', () => {
  it('an agent creates, uploads, searches and exports through tools; its email share holds', async ({ drive: o }) => {
    const a = await connectInMemory(o.s.runtime, o.agent.key, { toolsets: 'files' });
    try {
      const tools = (await a.client.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(
        expect.arrayContaining([
          'files_get',
          'files_list',
          'files_create',
          'files_uploadRegister',
          'files_move',
          'files_delete',
          'files_shareGrant',
          'files_exportRequest',
        ]),
      );
      const dir = structured(await a.client.callTool({ name: 'files_create', arguments: { kind: 'folder', name: 'Research' } })).file;
      const up = structured(
        await a.client.callTool({
          name: 'files_uploadRegister',
          arguments: { name: 'notes.md', parentId: dir.id, contentBase64: Buffer.from('# Notes on the axolotl').toString('base64') },
        }),
      ).file;
      expect(up).toMatchObject({ kind: 'upload', parentId: dir.id, contentType: 'text/plain; charset=utf-8' });
      const found = structured(await a.client.callTool({ name: 'files_list', arguments: { query: 'axolotl' } }));
      expect(found.files.map((f: any) => f.id)).toEqual([up.id]);
      const exp = structured(await a.client.callTool({ name: 'files_exportRequest', arguments: { fileId: up.id, format: 'original' } }));
      expect(exp.url).toContain('/api/v1/blobs/');
      const hold = structured(
        await a.client.callTool({ name: 'files_shareGrant', arguments: { fileId: up.id, grantee: { email: 'x@outside.example' }, role: 'viewer' } }),
      );
      expect(hold).toMatchObject({ status: 'approval_required', approval: { actionClass: 'files.share_grant' } });
      expect(toolError(await a.client.callTool({ name: 'files_get', arguments: { fileId: 'fil_nothere' } })).code).toBe('NOT_FOUND');
    } finally {
      await a.close();
    }
  });

  it('a viewer’s write over MCP is FORBIDDEN_SCOPE naming the role', async ({ drive: o }) => {
    const vault = (await ok(o.s, 'files.create', { kind: 'folder', name: 'Vault', restricted: true }, o.mia.key)).file;
    await ok(o.s, 'files.shareGrant', { fileId: vault.id, grantee: { principalId: o.agent.id }, role: 'viewer' }, o.mia.key);
    const a = await connectInMemory(o.s.runtime, o.agent.key, { toolsets: 'files' });
    try {
      const err = toolError(await a.client.callTool({ name: 'files_rename', arguments: { fileId: vault.id, name: 'Mine' } }));
      expect(err).toMatchObject({ code: 'FORBIDDEN_SCOPE', message: expect.stringContaining('missing role editor') });
    } finally {
      await a.close();
    }
  });
});
