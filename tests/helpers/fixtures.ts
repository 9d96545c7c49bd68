import { test as base } from 'vitest';
import { testServer } from './harness.js';
import { castServer } from './people.js';
import { annOrg } from '../domain/files/annotation/kit.js';
import { booksServer } from '../domain/books/setup.js';
import { callOrg } from '../domain/messaging/calling/kit.js';
import { govOrg as charterOrg } from '../domain/governance/charter/setup.js';
import { decisionOrg } from '../domain/governance/decision/setup.js';
import { govOrg as escalationOrg } from '../domain/governance/escalation/setup.js';
import { driveOrg } from '../domain/files/drive-kit.js';
import { team } from '../domain/messaging/lifecycle-kit.js';

/**
 * `it` (and `test`) with file-scoped fixtures, in place of `let s; beforeAll(() => s = ...); afterAll(() => s.close())`:
 * a fixture opens at the first test of a file that names it, and closes when the file ends.
 *
 *   it('creates a task', async ({ server: s }) => { ... });
 */

/** Open once per file; close when the file ends. */
const perFile =
  <T>(open: () => Promise<T>, close: (value: T) => Promise<void>) =>
  async ({}, { onCleanup }: { onCleanup: (fn: () => Promise<void>) => void }): Promise<T> => {
    const value = await open();
    onCleanup(() => close(value));
    return value;
  };

const FILE = { scope: 'file' } as const;

export const it = base
  /** testServer(): a runtime, the gateway and a fresh org. */
  .extend(
    'server',
    FILE,
    perFile(
      () => testServer(),
      (s) => s.close(),
    ),
  )
  /** castServer(): a server and its usual people (owner, mia, max, agent, viewer). */
  .extend(
    'cast',
    FILE,
    perFile(castServer, (o) => o.s.close()),
  )
  /** booksServer(): a server on a TestClock at 2026-11-02, with an approver and an agent. */
  .extend(
    'books',
    FILE,
    perFile(
      () => booksServer(),
      (s) => s.close(),
    ),
  )
  /** The family kits' orgs of known people. */
  .extend(
    'annotation',
    FILE,
    perFile(annOrg, (o) => o.s.close()),
  )
  .extend(
    'calling',
    FILE,
    perFile(
      () => callOrg(),
      (o) => o.s.close(),
    ),
  )
  .extend(
    'charter',
    FILE,
    perFile(charterOrg, (o) => o.s.close()),
  )
  .extend(
    'decision',
    FILE,
    perFile(decisionOrg, (o) => o.s.close()),
  )
  .extend(
    'drive',
    FILE,
    perFile(
      () => driveOrg(),
      (o) => o.s.close(),
    ),
  )
  .extend(
    'escalation',
    FILE,
    perFile(
      () => escalationOrg(),
      (o) => o.s.close(),
    ),
  )
  .extend(
    'team',
    FILE,
    perFile(
      () => team(),
      (t) => t.s.close(),
    ),
  );

export const test = it;
