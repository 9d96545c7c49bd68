import { notFound } from '../../../protocol/errors.js';
import type { Queryable } from '../../../db/types.js';
import { taskHolding, transferTask } from '../../board/index.js';
import { decisionHolding, transferDecision } from '../decision/driver.js';
import { escalationHolding, transferEscalation } from '../escalation/model.js';
import type { SubjectKind } from './model.js';

/*
 * What is handed off, through each owning family's exports: who holds it now (a task's live claimer, else its
 * assignee; a decision's driver; an escalation's assignee as of now) and moving it to the recipient.
 */

export interface Subject {
  kind: SubjectKind;
  id: string;
}

export interface Holding {
  holder: string | null;
  /** Still open to a handoff: a task not done, an open decision, an open escalation. */
  open: boolean;
  /** How a CONFLICT names its state: `done`, `adopted`, `resolved`. */
  state: string;
  /** The subject's own area, the handoff's default (a decision's, an escalation's; a task has none). */
  area: string | null;
}

/** The subject's holding, locked FOR UPDATE when an act is about to change it; NOT_FOUND when the org has no such subject. */
export async function holdingOf(q: Queryable, orgId: string, s: Subject, now: Date, lock: '' | 'FOR UPDATE'): Promise<Holding> {
  switch (s.kind) {
    case 'task': {
      const t = await taskHolding(q, orgId, s.id, lock);
      if (!t) throw notFound(`task ${s.id}`);
      return { holder: t.holder, open: t.col !== 'done', state: t.col, area: null };
    }
    case 'decision': {
      const d = await decisionHolding(q, orgId, s.id, lock);
      if (!d) throw notFound(`decision ${s.id}`);
      return { holder: d.driver, open: d.open, state: d.status, area: d.area };
    }
    case 'escalation': {
      const e = await escalationHolding(q, orgId, s.id, now, lock);
      if (!e) throw notFound(`escalation ${s.id}`);
      return { holder: e.holder, open: e.open, state: e.status, area: e.area };
    }
  }
}

/** Move the subject to `to` (the subject locked by holdingOf): what moved, for the handoff's event. */
export async function transfer(q: Queryable, orgId: string, s: Subject, to: string, now: Date): Promise<Record<string, unknown>> {
  switch (s.kind) {
    case 'task':
      return transferTask(q, orgId, s.id, to);
    case 'decision':
      return transferDecision(q, orgId, s.id, to);
    case 'escalation':
      return transferEscalation(q, orgId, s.id, to, now);
  }
}
