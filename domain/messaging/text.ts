import { badRequest, notFound } from '../../protocol/errors.js';
import type { Queryable } from '../../db/types.js';
import { taskHolding } from '../board/index.js';
import { callerOf, canReadFile } from '../files/index.js';
import { getMembers } from '../people/index.js';

/*
 * What a message's words point at: `<@usr_…>` / `<@agt_…>` mention members of the org, `<!channel>` the whole
 * channel, `<task_…>` names a board task (checked at send through the board's own lookup, returned in refs).
 * Shared by messaging.send and edit (and schedule), which read a text again whenever it changes.
 */

export const MAX_MENTIONS = 100;
export const MAX_REFS = 20;

const MENTION = /<@((?:usr|agt)_[A-Za-z0-9]{1,60})>/g;
const TASK = /<(task_[A-Za-z0-9]{1,59})>/g;
const CHANNEL = /<!channel>/;

export interface TextLinks {
  mentions: string[];
  mentionChannel: boolean;
  refs: string[];
}

const distinct = (re: RegExp, text: string): string[] => [...new Set([...text.matchAll(re)].map((m) => m[1]))];

/** The mentions and task refs of `text`, each checked: an unknown member is BAD_REQUEST, an unknown task NOT_FOUND. */
export async function readText(q: Queryable, orgId: string, text: string, field = 'text'): Promise<TextLinks> {
  const mentions = distinct(MENTION, text);
  const refs = distinct(TASK, text);
  if (mentions.length > MAX_MENTIONS) throw badRequest(field, `mentions at most ${MAX_MENTIONS} members (use <!channel> for everyone)`);
  if (refs.length > MAX_REFS) throw badRequest(field, `names at most ${MAX_REFS} tasks`);
  if (mentions.length) {
    const known = new Set((await getMembers(q, orgId, mentions)).map((m) => m.id));
    const unknown = mentions.find((id) => !known.has(id));
    if (unknown) throw badRequest(field, `<@${unknown}> is not a member of this org`);
  }
  for (const taskId of refs) {
    if (!(await taskHolding(q, orgId, taskId))) throw notFound(`task ${taskId} (named in ${field})`);
  }
  return { mentions, mentionChannel: CHANNEL.test(text), refs };
}

/** Attached files must be ones the sender can read: another's private file is NOT_FOUND. */
export async function checkFiles(
  q: Queryable,
  orgId: string,
  principal: { id: string; scopes: ReadonlySet<string> },
  fileIds: readonly string[] | undefined,
  field = 'fileIds',
): Promise<void> {
  for (const fileId of fileIds ?? []) {
    if (!(await canReadFile(q, orgId, fileId, callerOf(principal)))) throw notFound(`file ${fileId} (in ${field})`);
  }
}
