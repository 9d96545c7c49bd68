import { openRuntime, type Runtime, type RuntimeOptions } from './core/runtime.js';
import { DEPLOYED } from './deployed.js';

export type { Runtime, RuntimeOptions } from './core/runtime.js';

/** A runtime over the deployed families (domain/deployed.ts): what the server, the CLI and the tests open. */
export function createRuntime(opts: RuntimeOptions = {}): Promise<Runtime> {
  return openRuntime(DEPLOYED, opts);
}
