import { patchBodyValidation, scimPatch, ScimError as PatchError, type ScimPatch, type ScimPatchOperation, type ScimResource } from 'scim-patch';
import { invalid, type ScimType } from './errors.js';
import { PATCH_SCHEMA } from './schemas.js';

/**
 * SCIM PATCH (RFC 7644 section 3.5.2) applied by scim-patch to the resource as this face renders it; the
 * caller then compares the patched resource with the original. Before that, the shapes identity providers
 * really send are brought to the RFC's: no schemas, the op in any case (Entra ID writes "Replace"), and
 * per-attribute value shapes (`normalise`).
 */

/** Per-attribute value shapes: gets an operation (op lowercased) and the attribute its path names, if any. */
export type Normaliser = (op: ScimPatchOperation, attribute: string) => ScimPatchOperation;

/** The attribute an operation's path names: `members[value eq "x"]` -> members; `urn:…:User:manager` -> that URN path. */
export function pathAttribute(path: string): string {
  return path.split(/[[]/)[0].split(/\.(?![^:]*:)/)[0].toLowerCase();
}

export function applyPatch<T extends Record<string, unknown>>(resource: T, body: unknown, normalise: Normaliser): T {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalid('body: must be a PatchOp object', 'invalidSyntax');
  // Entra ID's documented bodies may leave out schemas; the operations are what matter.
  const patch = { ...(body as ScimPatch), schemas: (body as ScimPatch).schemas ?? [PATCH_SCHEMA] };
  try {
    patchBodyValidation(patch);
    // Validated above: op is add, remove or replace in some case; scim-patch takes only two casings of each.
    const ops = patch.Operations.map((op) =>
      normalise({ ...op, op: op.op.toLowerCase() } as ScimPatchOperation, typeof op.path === 'string' ? pathAttribute(op.path) : ''),
    );
    return scimPatch(resource as unknown as ScimResource, ops, { mutateDocument: false, treatMissingAsAdd: true }) as unknown as T;
  } catch (err) {
    if (err instanceof PatchError) throw invalid(err.message, (err.scimCode as ScimType | undefined) ?? 'invalidSyntax');
    throw err;
  }
}
