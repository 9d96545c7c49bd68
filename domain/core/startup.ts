import type { Deps } from './deps.js';

/*
 * Work a migration leaves for the application: what needs the application's code (its normalisers, its scores)
 * or its ledger (an event with the system actor, which SQL cannot append). createRuntime runs every step at each
 * start, after the migrations; a step finds its own pending rows and marks them done in the transaction that does
 * the work (rows locked with SKIP LOCKED), so a restart or several processes starting at once do it exactly once.
 */

export interface StartupStep {
  /** What it does, for logs. */
  name: string;
  /** Returns how many units of work (orgs, rows) it did; 0 when nothing was pending. */
  run(deps: Deps): Promise<number>;
}

export async function runStartupSteps(deps: Deps, steps: readonly StartupStep[]): Promise<void> {
  for (const step of steps) {
    const done = await step.run(deps);
    if (done > 0) deps.log.info({ step: step.name, done }, 'startup step done');
  }
}
