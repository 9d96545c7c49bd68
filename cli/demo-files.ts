import { monthEnd, monthStart } from '../domain/books/dates.js';
import type { DemoDesk } from './demo.js';
import { lastQuarterStart } from './demo-story.js';

/*
 * Harbour Lane Studio's drive (docs/families/files.md): a Clients folder with the Tidewater brief (a doc in review
 * mode, where the bookkeeping agent's edit waits as a suggestion), a restricted Finance folder shared with Priya, an
 * uploaded rate card found by its words, a link shared with the client's marketing lead, a comment anchored in the
 * brief, a budget sheet with formulas (and a comment on its margin) and a tab the books feed, a pitch deck, a pin on the org home and a file in
 * the trash. Every step is an API call through the pipeline.
 */

/** The Tidewater job's budget: days by phase at the day rate, the total and the margin computed by formulas. */
// prettier-ignore
const BUDGET = {
  tabs: [
    {
      title: 'Budget',
      cells: {
        A1: 'Phase', B1: 'Days', C1: 'Day rate', D1: 'Cost',
        A2: 'Discovery workshop', B2: '1', C2: '1400', D2: '=B2*C2',
        A3: 'Logo and lock-ups', B3: '4', C3: '1400', D3: '=B3*C3',
        A4: 'Palette and guidelines', B4: '5', C4: '1400', D4: '=B4*C4',
        A5: 'Total', B5: '=SUM(B2:B4)', D5: '=SUM(D2:D4)',
        A7: 'Quoted', D7: '16000',
        A8: 'Margin', D8: '=D7-D5', E8: '=D8/D7',
      },
    },
    // Filled from books.reports by a feed (files.sheetFedRange) from A3 down; the totals are formulas over it.
    {
      title: 'Studio costs',
      cells: {
        A1: 'What the studio spent last quarter, from the books',
        E1: 'Total (cents)', F1: '=SUM(C:C)',
        E2: 'Total ($)', F2: '=F1/100',
      },
    },
  ],
};

const PITCH = {
  slides: [
    { layout: 'title', title: 'Tidewater Marine: a brand for the next decade', body: 'Harbour Lane Studio, 2026' },
    { title: 'Where Tidewater is going', body: '- From day hire to premium charters\n- Families who come back every summer' },
    {
      title: 'What we will make',
      body: '- Logo lock-ups\n- A palette that works on water and at night\n- Guidelines the crew can use',
      notes: 'Show the dark-mode board here.',
    },
    { title: 'Timeline and investment', body: 'Ten working days. $16,000, half on delivery.' },
  ],
};

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

export async function demoFiles(desk: DemoDesk, today: string, progress: (line: string) => void): Promise<string[]> {
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

  progress('Files: a budget sheet with formulas and a books feed, and a pitch deck');
  const budget = (await desk.call('files.create', { kind: 'sheet', name: 'Tidewater budget', parentId: clients.id, content: BUDGET })).file;
  const from = lastQuarterStart(today);
  const costsTab = (await desk.call('files.sheetRead', { fileId: budget.id })).tabs[1].id as string;
  const feed = (
    await desk.call('files.sheetFedRange', {
      fileId: budget.id,
      op: 'set',
      tabId: costsTab,
      anchor: 'A3',
      source: {
        method: 'books.reports',
        params: { report: 'profitAndLoss', from, to: monthEnd(monthStart(from, 2)) },
        rows: 'expenses.lines',
        columns: ['account', 'name', 'amountCents'],
      },
    })
  ).feeds[0];
  const budgetTab = (await desk.call('files.sheetRead', { fileId: budget.id, range: 'D5' })).tabId as string;
  await desk.call('annotation.create', {
    targetId: budget.id,
    kind: 'comment',
    selector: { type: 'cell', tabId: budgetTab, a1: 'D8' },
    body: 'Margin looks thin if the guidelines run long: check before we send the quote.',
  });
  const pitch = (await desk.call('files.create', { kind: 'deck', name: 'Tidewater pitch', parentId: clients.id, content: PITCH })).file;
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
    `  files.sheetRead {"fileId":"${budget.id}"}: the "Tidewater budget" computes its costs, total and margin by formulas; files.sheetWriteCells {"fileId":"${budget.id}","cells":[{"a1":"B4","input":"7"}]} recalculates them (a formula cell needs overwriteFormulas); files.exportRequest {"fileId":"${budget.id}","format":"xlsx"} keeps the formulas`,
    `  its "Studio costs" tab is fed from books.reports (the last quarter's expenses, ${feed.range}; cents stay integers) and totals them by formula: files.sheetFedRange {"fileId":"${budget.id}","op":"refresh"} runs it again; a reader without books.read sees those cells and the totals as #N/A`,
    `  files.deckRead {"fileId":"${pitch.id}"}: the "Tidewater pitch" (4 slides); files.deckWriteSlides edits it by slide on a base revision`,
    `  files.recover {"fileId":"${old.id}"}: "Old pitch notes" waits in the trash (files.list {"view":"trash"})`,
  ];
}
