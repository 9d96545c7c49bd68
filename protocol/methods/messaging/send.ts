import { z } from 'zod';
import { text } from '../../schema.js';
import { channelId, messageId } from './shapes.js';

/** What a message is made of, shared by messaging.send and messaging.schedule (which adds postAt). */

export const MAX_TEXT = 16_000;
export const MAX_FILES = 10;
export const MAX_ARTIFACTS = 5;

const ids = (prefix: string, max: number, description: string) =>
  z
    .array(
      z
        .string()
        .max(64, 'must be at most 64 characters')
        .regex(new RegExp(`^${prefix}_[A-Za-z0-9]+$`), `must be an id of the form ${prefix}_…`),
    )
    .max(max, `must list at most ${max}`)
    .refine((list) => new Set(list).size === list.length, 'must not repeat an id')
    .describe(description);

export const sendParams = z.strictObject({
  channelId: channelId('The channel to post in (ch_…): a member, not an observer.'),
  idempotencyId: z
    .string()
    .min(1, 'must be at least 1 character')
    .max(128, 'must be at most 128 characters')
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
    .describe(
      'Your key for this message (1-128 printable ASCII): sending it again with the same params returns the same message; with other params, CONFLICT.',
    ),
  text: text({
    min: 1,
    max: MAX_TEXT,
    description:
      'The message, up to 16,000 characters. `<@usr_…>` / `<@agt_…>` mention members, `<!channel>` the whole channel, `<task_…>` names a board task.',
  }),
  threadId: messageId('Reply in this thread: a posted root message of the same channel (not itself a reply).').optional(),
  alsoToChannel: z.boolean().describe('A reply also shown in the channel (only with threadId).').optional(),
  fileIds: ids('fil', MAX_FILES, 'Files to attach (fil_…), up to 10.').optional(),
  artifactIds: ids('art', MAX_ARTIFACTS, 'Artifacts to embed (art_…), up to 5.').optional(),
});
