import { type HoldActDescriber, pick, str } from '../core/hold-acts.js';

/** How the board's held acts read in the approval inbox (deleting a workstream, removing an attachment), from its hold summaries. */
export const boardHoldActs: Readonly<Record<string, HoldActDescriber>> = {
  'board.delete_workstream': (s, p) => ({
    title: 'Delete a workstream',
    facts: [
      ...pick(s, /^Delete workstream "(?<name>.+?)" and its (?<comments>\d+) comments?; /, [
        ['name', 'Workstream'],
        ['comments', 'Comments erased'],
      ]),
      ...pick(s, /; move its (?<items>\d+ items?) to "(?<target>.+)"$/, [
        ['items', 'Items'],
        ['target', 'Items move to'],
      ]),
      ...pick(s, /; leave its (?<items>\d+ items?) \(all done\) without a workstream$/, [['items', 'Done items left without a workstream']]),
      ...(str(p.workstreamId) ? [{ label: 'Workstream id', value: p.workstreamId as string }] : []),
    ],
  }),
  'board.remove_task_attachment': (s, p) => ({
    title: 'Remove an attachment',
    facts: [
      ...pick(s, /^Remove the attachment "(?<name>.+?)" from the item "(?<item>.+)"$/, [
        ['name', 'Attachment'],
        ['item', 'From the item'],
      ]),
      ...(str(p.attachmentId) ? [{ label: 'Attachment id', value: p.attachmentId as string }] : []),
    ],
  }),
};
