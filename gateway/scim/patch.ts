import { patchBodyValidation, scimPatch, ScimError as PatchError, type ScimPatch, type ScimPatchOperation, type ScimResource } from 'scim-patch';
import { isolatedCopy, RESERVED_KEYS_NOTE, reservedSegment } from '../../protocol/input-rules.js';
import { jsonBoundsIssue, MAX_JSON_DEPTH } from '../../protocol/json-bounds.js';
import { invalid, type ScimType } from './errors.js';
import { PATCH_SCHEMA } from './schemas.js';

/**
 * SCIM PATCH (RFC 7644 section 3.5.2) applied by scim-patch to the resource as this face renders it; the
 * caller then compares the patched resource with the original. Before that, the shapes identity providers
 * really send are brought to the RFC's: no schemas, the op in any case (Entra ID writes "Replace"), and
 * per-attribute value shapes (`normalise`).
 *
 * scim-patch assigns by path, both an operation's path and every key of an object value (`{"name.givenName":
 * "x"}`): a segment "__proto__", "constructor" or "prototype" would write to Object.prototype, which every org's
 * next call inherits. Such a path or key is refused, and the patch is applied to a copy whose objects have no
 * Object.prototype in their chain (input-rules.ts isolatedCopy), so nothing it assigns can reach beyond the copy.
 */

/** Per-attribute value shapes: gets an operation (op lowercased) and the attribute its path names, if any. */
export type Normaliser = (op: ScimPatchOperation, attribute: string) => ScimPatchOperation;

/** The attribute an operation's path names: `members[value eq "x"]` -> members; `urn:…:User:manager` -> that URN path. */
export function pathAttribute(path: string): string {
  return path
    .split(/[[]/)[0]
    .split(/\.(?![^:]*:)/)[0]
    .toLowerCase();
}

/** The first path or value key of the operations that names a reserved segment: `<where>: <why>` and its scimType. */
function reservedIn(operations: readonly ScimPatchOperation[]): [string, ScimType] | undefined {
  for (const [i, op] of operations.entries()) {
    const inPath = typeof op.path === 'string' ? reservedSegment(op.path) : undefined;
    if (inPath) return [`Operations[${i}].path: names "${inPath}" (${RESERVED_KEYS_NOTE})`, 'invalidPath'];
    // Every key of a value, at any depth, is a path to scim-patch or to whatever reads the patched resource.
    const stack: unknown[] = [op.value];
    while (stack.length > 0) {
      const v = stack.pop();
      if (v === null || typeof v !== 'object') continue;
      if (Array.isArray(v)) stack.push(...v);
      else {
        for (const [k, child] of Object.entries(v)) {
          const inKey = reservedSegment(k);
          if (inKey) return [`Operations[${i}].value: the key ${JSON.stringify(k.slice(0, 80))} names "${inKey}" (${RESERVED_KEYS_NOTE})`, 'invalidValue'];
          stack.push(child);
        }
      }
    }
  }
  return undefined;
}

export function applyPatch<T extends Record<string, unknown>>(resource: T, body: unknown, normalise: Normaliser): T {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalid('body: must be a PatchOp object', 'invalidSyntax');
  // Entra ID's documented bodies may leave out schemas; the operations are what matter.
  const patch = { ...(body as ScimPatch), schemas: (body as ScimPatch).schemas ?? [PATCH_SCHEMA] };
  try {
    patchBodyValidation(patch);
    // Bounded before the copies below recurse over the values.
    const unbounded = jsonBoundsIssue(patch.Operations, { prefix: 'Operations' }, { maxDepth: MAX_JSON_DEPTH, maxSize: Number.POSITIVE_INFINITY });
    if (unbounded) throw invalid(unbounded, 'invalidSyntax');
    const reserved = reservedIn(patch.Operations);
    if (reserved) throw invalid(...reserved);
    // Validated above: op is add, remove or replace in some case; scim-patch takes only two casings of each.
    const ops = patch.Operations.map((op) =>
      normalise({ ...op, op: op.op.toLowerCase() } as ScimPatchOperation, typeof op.path === 'string' ? pathAttribute(op.path) : ''),
    );
    // Our own isolated copies, mutated in place (scim-patch's own copy would be plain objects again).
    const target = isolatedCopy(resource) as unknown as ScimResource;
    return scimPatch(target, isolatedCopy(ops), { mutateDocument: true, treatMissingAsAdd: true }) as unknown as T;
  } catch (err) {
    if (err instanceof PatchError) throw invalid(err.message, (err.scimCode as ScimType | undefined) ?? 'invalidSyntax');
    throw err;
  }
}
