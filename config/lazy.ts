import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/**
 * A library loaded by its first use rather than with the server, synchronously, as the getter's caller needs it:
 * the ES module build an import gives (require of an ES module, Node 22.12+), so it is the same instance other
 * imports of it share. For libraries that cost a noticeable part of a start (tests/protocol/lazy-imports.test.ts).
 */
export function lazyModule<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(fileURLToPath(import.meta.resolve(name))) as T);
}
