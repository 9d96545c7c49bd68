import type { DemoDesk } from './demo.js';

/*
 * Harbour Lane Studio's drive (docs/families/files.md): a Clients folder with the Tidewater brief (a doc in review
 * mode, where the bookkeeping agent's edit waits as a suggestion), a restricted Finance folder shared with Priya, an
 * uploaded rate card found by its words, a link shared with the client's marketing lead, a comment anchored in the
 * brief, a pin on the org home and a file in the trash. Every step is an API call through the pipeline.
 */

const BRIEF = `# Tidewater rebrand: brief

Tidewater Marine is a family boat-hire business in Pittwater, moving upmarket.

## Deliverables

- Logo lock-ups (primary, stacked, mark only)
- Colour palette with a dark-mode variant
- Brand guidelines, 24 pages

## Timeline

Final files to the client on Thursday. Invoice 50% on delivery.`;

const RATES = `Harbour Lane Studio rate card 2026
Design day rate: $1,400
Half day: $760
Brand workshop (half day, two designers): $2,200`;

export async function demoFiles(desk: DemoDesk, progress: (line: string) => void): Promise<string[]> {
  desk.live();
  const m = await desk.memberIds();
  const priya = m.get('Priya Nair')!;
  const agent = desk.keys.agent;

  progress('Files: folders, a brief in review mode, a shared finance folder and an upload');
  const clients = (await desk.call('files.create', { kind: 'folder', name: 'Clients' })).file;
  const finance = (await desk.call('files.create', { kind: 'folder', name: 'Finance', restricted: true })).file;
  await desk.call('files.shareGrant', { fileId: finance.id, grantee: { principalId: priya }, role: 'editor' });
  const brief = (
    await desk.call('files.create', { kind: 'doc', name: 'Tidewater brief', parentId: clients.id, reviewMode: true, content: { markdown: BRIEF } })
  ).file;

  const read = await desk.call('files.docRead', { fileId: brief.id, format: 'text' });
  const timeline = read.blocks.find((b: { text?: string }) => b.text?.includes('Invoice 50% on delivery.'));
  // The agent's edit of a review-mode doc becomes a suggestion a human accepts.
  const suggestion = await desk.call(
    'files.docWriteRevision',
    {
      fileId: brief.id,
      baseRevision: read.head,
      ops: [{ op: 'replaceText', blockId: timeline.id, find: 'Invoice 50% on delivery.', replace: 'Invoice 50% on delivery, the rest in 14 days.' }],
    },
    agent,
  );
  const deliverables = read.blocks.find((b: { text?: string }) => b.text?.includes('Colour palette'));
  const at = deliverables.text.indexOf('Colour palette');
  const thread = await desk.call('annotation.create', {
    targetId: brief.id,
    kind: 'comment',
    selector: { type: 'block', tabId: deliverables.tabId, blockId: deliverables.id, start: at, end: at + 14, quote: { exact: 'Colour palette' } },
    body: 'Tom: do we show the dark-mode variant in the guidelines too?',
  });

  const rates = (
    await desk.call('files.uploadRegister', { contentBase64: Buffer.from(RATES).toString('base64'), name: 'Rate card 2026.txt', parentId: finance.id })
  ).file;
  const share = await desk.call('files.shareGrant', { fileId: brief.id, grantee: { email: 'marketing@tidewater.example' }, role: 'viewer' });
  await desk.call('file.pin', { targetId: clients.id, place: 'org' });
  const old = (await desk.call('files.create', { kind: 'doc', name: 'Old pitch notes', parentId: clients.id, content: { markdown: 'Pitch ideas from 2024.' } }))
    .file;
  await desk.call('files.delete', { fileId: old.id });

  return [
    `Files (files.list, files.get, files.docRead, files.comments, file.listPinned {"place":"org"}):`,
    `  Clients (${clients.id}, pinned to the org home) holds the "Tidewater brief" (${brief.id}, review mode) with a comment on its palette line (${thread.annotation.id}); Finance (${finance.id}) is restricted, shared with Priya Nair as editor, and holds the rate card (${rates.id})`,
    `  files.docSuggestResolve {"suggestionId":"${suggestion.suggestionId}","action":"accept"} (admin key): the bookkeeping agent's edit of the payment terms waits as a suggestion; files.docSuggestions {"fileId":"${brief.id}"} shows it before and after`,
    `  files.list {"query":"day rate"} finds the rate card by its words; files.exportRequest {"fileId":"${brief.id}","format":"docx"} answers a download URL valid 15 minutes`,
    `  ${share.guestUrl} is the brief's read-only guest page for the client's marketing lead (14 days); files.shareRevoke {"fileId":"${brief.id}","grantId":"${share.grant.id}"} ends it`,
    `  files.recover {"fileId":"${old.id}"}: "Old pitch notes" waits in the trash (files.list {"view":"trash"})`,
  ];
}
