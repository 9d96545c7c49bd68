import type { FastifyInstance } from 'fastify';
import { ApiError } from '../protocol/errors.js';
import { okFrame } from '../protocol/frames.js';
import { ImportStatementBody } from '../protocol/methods/books/reconciliation.js';
import { parseParams } from '../protocol/schema.js';
import { bearerFrom } from '../domain/core/auth.js';
import { importStatement } from '../domain/books/reconciliation/index.js';
import { toErrorFrame } from '../domain/core/errors.js';
import type { Runtime } from '../domain/deployed.js';

/**
 * POST /api/v1/admin/books.importStatement: the bank statement import for an org's admin (scope `admin`). Not a
 * registry method (the registry is frozen): feed lines come from the bank, so only an operator brings them in.
 * Body `{format, content, fileName?}`; answers `{ok: true, result: {importId, lines, imported, duplicates, ledgerId,
 * message}}` or the usual error frame.
 */
export async function booksImportRoutes(app: FastifyInstance, opts: { runtime: Runtime }) {
  const { runtime } = opts;
  app.post('/api/v1/admin/books.importStatement', async (req, reply) => {
    try {
      const principal = await runtime.pipeline.principalFor(bearerFrom(req.headers.authorization));
      if (!principal.scopes.has('admin')) throw new ApiError('FORBIDDEN_SCOPE', 'missing scope admin for admin/books.importStatement');
      const body = parseParams(ImportStatementBody, req.body ?? {}, 'body');
      const result = await importStatement(runtime.db, principal.orgId, body, principal.id);
      return reply.code(200).send(okFrame(result));
    } catch (err) {
      const { status, frame } = toErrorFrame(err, runtime.deps.log, { requestId: req.id, method: 'admin/books.importStatement' });
      return reply.code(status).send(frame);
    }
  });
}
