import { badRequest } from '../../protocol/errors.js';
import type { Queryable } from '../../db/types.js';
import type { Deps } from '../core/deps.js';
import type { MessageEmbeds } from '../messaging/index.js';
import { announce } from './wake.js';

/*
 * Artifacts in messages (messaging's messageEmbeds): a send names up to 5 of its author's own drafts, which the
 * message posts (state posted, its channel and message); a deleted message erases its artifacts: content and
 * responses gone, the head kept as erased so a client resuming by updatedAfter drops it. Each change is announced
 * with the message's commit, as artifact writes are.
 */

interface Changed {
  artifact_id: string;
  revision: number;
  state: string;
  responses: number;
  channel_id: string | null;
}
const RETURNING = 'RETURNING artifact_id, revision, state, responses, channel_id';

async function refuseUnembeddable(q: Queryable, orgId: string, authorId: string, ids: readonly string[]): Promise<void> {
  const rows = await q.query<{ artifact_id: string; author_id: string; state: string }>(
    'SELECT artifact_id, author_id, state FROM artifacts WHERE org_id = $1 AND artifact_id = ANY($2::text[]) FOR UPDATE',
    [orgId, [...ids]],
  );
  ids.forEach((id, i) => {
    const row = rows.find((r) => r.artifact_id === id);
    // Another's draft reads as unknown: nothing is said about it.
    if (!row || row.state === 'erased' || (row.author_id !== authorId && row.state === 'draft'))
      throw badRequest(`artifactIds.${i}`, `no artifact ${id} of yours`);
    if (row.author_id !== authorId) throw badRequest(`artifactIds.${i}`, `${id} is not yours: a message embeds its author's own drafts`);
    if (row.state !== 'draft') throw badRequest(`artifactIds.${i}`, `${id} is already posted: a draft is posted once; create a new one`);
  });
}

async function announceAll(deps: Deps, q: Queryable, orgId: string, rows: readonly Changed[]): Promise<void> {
  for (const r of rows) {
    const change = { orgId, artifactId: r.artifact_id, revision: Number(r.revision), state: r.state, responses: Number(r.responses), channelId: r.channel_id };
    await announce(deps, q, change);
  }
}

export const artifactEmbeds: MessageEmbeds = {
  field: 'artifactIds',
  check: (_deps, q, orgId, author, ids) => refuseUnembeddable(q, orgId, author.id, ids),
  async attach(deps, q, orgId, input) {
    if (input.strict) await refuseUnembeddable(q, orgId, input.authorId, input.ids);
    const rows = await q.query<Changed>(
      `UPDATE artifacts SET state = 'posted', channel_id = $4, message_id = $5, updated_at = $6
        WHERE org_id = $1 AND artifact_id = ANY($2::text[]) AND author_id = $3 AND state = 'draft' ${RETURNING}`,
      [orgId, [...input.ids], input.authorId, input.channelId, input.messageId, input.at],
    );
    await announceAll(deps, q, orgId, rows);
  },
  async erase(deps, q, orgId, messageId, at) {
    await q.query(
      `DELETE FROM artifact_responses r USING artifacts a
        WHERE r.org_id = $1 AND a.org_id = $1 AND a.message_id = $2 AND r.artifact_id = a.artifact_id`,
      [orgId, messageId],
    );
    const rows = await q.query<Changed>(
      `UPDATE artifacts SET state = 'erased', title = NULL, doc = NULL, responses = 0, updated_at = $3
        WHERE org_id = $1 AND message_id = $2 AND state <> 'erased' ${RETURNING}`,
      [orgId, messageId, at],
    );
    await announceAll(deps, q, orgId, rows);
  },
};
