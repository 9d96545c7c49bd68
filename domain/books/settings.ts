import { one, type Db } from '../../db/types.js';
import { appendEvent } from '../../ledger/append.js';
import { findOrgBySlug } from '../people/index.js';
import { AU_STATES, isAuState, type AuState } from './calendar.js';

/**
 * An operator act (npm run cli -- books-settings): set the org's state, whose public holidays (with the national
 * ones) make the org's own business days (calendar.ts). Payday Super due dates use the law's calendar instead,
 * the same in every state. The v1 method registry is frozen, so it is not an API
 * method; ledgered like the other operator acts, with the system actor, as `books.settings.set_state`.
 */
export async function setBooksState(db: Db, slug: string, state: string): Promise<{ state: AuState; previous: AuState }> {
  if (!isAuState(state)) throw new Error(`--state: must be one of ${AU_STATES.join(', ')}, got ${JSON.stringify(state)}`);
  return db.tx(async (q) => {
    const org = await findOrgBySlug(q, slug);
    if (!org) throw new Error(`org ${slug} not found`);
    // Every org has its settings row (created by a trigger on orgs).
    const before = one(await q.query<{ state: AuState }>('SELECT state FROM books_settings WHERE org_id = $1 FOR UPDATE', [org.orgId]), 'the books settings');
    await q.query('UPDATE books_settings SET state = $2, updated_at = now() WHERE org_id = $1', [org.orgId, state]);
    await appendEvent(q, org.orgId, {
      family: 'books',
      kind: 'books.settings.set_state',
      entityId: org.orgId,
      actor: '',
      payload: { state, previous: before.state, by: 'system' },
    });
    return { state, previous: before.state };
  });
}
