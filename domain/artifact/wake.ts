import type { Queryable } from '../../db/types.js';
import type { Deps } from '../core/deps.js';

/*
 * An artifact changed (created, patched, acted on, posted, erased): one notification, sent with the write's commit
 * to every process (db/notifier.ts: delivered at commit, never for a rolled-back call). It carries ids and counts
 * only. get's long-poll wakes on it at once, and the org stream turns it into an `artifact` frame for those who see
 * the artifact (no ledger id: the registry keeps artifact R; clients resume with list updatedAfter).
 */

export const ARTIFACT_CHANGED = 'artifact.changed';

export interface ArtifactChange {
  [key: string]: string | number | null;
  orgId: string;
  artifactId: string;
  revision: number;
  state: string;
  responses: number;
  channelId: string | null;
}

export async function announce(deps: Deps, q: Queryable, change: ArtifactChange): Promise<void> {
  await deps.notifier.publish(q, ARTIFACT_CHANGED, change);
}

/**
 * Wait until the artifact changes or `ms` pass (or the caller goes away): resolves true when it changed. The
 * subscription is in place when this returns (the process listens already), so a caller that subscribes before its
 * last read misses no change committed in between.
 */
export function waitForChange(deps: Deps, orgId: string, artifactId: string, ms: number, signal?: AbortSignal): { changed: Promise<boolean>; cancel(): void } {
  let stop: () => void = () => {};
  let cancel = () => {};
  const changed = new Promise<boolean>((done) => {
    const finish = (v: boolean) => {
      stop();
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      done(v);
    };
    const onAbort = () => finish(false);
    const timer = setTimeout(() => finish(false), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
    stop = deps.notifier.subscribe(
      ARTIFACT_CHANGED,
      (m) => {
        if (m.orgId === orgId && m.artifactId === artifactId) finish(true);
      },
      () => finish(true),
    );
    cancel = () => finish(false);
    if (signal?.aborted) finish(false);
  });
  return { changed, cancel };
}
