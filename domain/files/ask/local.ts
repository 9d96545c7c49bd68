import { DraftBuilder, list, record, safeText, valueOf } from '../../../ai-gateway/local/compose.js';
import { ToolError, type AskInput, type Draft, type Toolbox } from '../../../ai-gateway/types.js';
import { scopeOf } from './reads.js';
import { asksToAct, keywords, passageOf, score } from './words.js';

/*
 * files.ask's offline default (the `local` provider runs it; no model). Deterministic: take the question's key words,
 * search the drive as the caller (files.list query: all the words, else any of them), read the best hits that are
 * docs, sheets or decks, and quote the passage holding most of the words, citing its block, cell or slide (an
 * upload's passage is the search's own, citing the file). A sheet cell's row is quoted with it: its integers as
 * figures of their cells, other values quoted. When no passage holds the words it refuses, saying what it did and
 * what to do next; a request to act (share, delete, send…) it refuses too: it only reads.
 */

interface FileView {
  id: string;
  kind: 'folder' | 'doc' | 'sheet' | 'deck' | 'upload';
  name: string;
}
interface Hit {
  cite: string;
  fileId: string;
  matched: 'text' | 'fuzzy';
  passage: string;
}
interface Candidate {
  file: FileView;
  hit: Hit | null;
}
interface Cell {
  cite?: string;
  a1: string;
  value: number | string | boolean | null;
  error: string | null;
  shown?: string;
}

/** Best matches read for a passage, pages of a doc, tabs of a sheet. */
const MAX_CANDIDATES = 3;
const MAX_DOC_PAGES = 4;
const MAX_TABS = 10;
const MAX_BESIDE = 4;

const cannot = (reason: string): Draft => ({ kind: 'cannot_answer', reason });

const GUARDS = {
  act: "files.ask only reads: it cannot share, change, move, delete or send a file. Use the drive's methods for that (files.shareGrant, files.docWriteRevision, files.delete…), and ask here what the files say.",
  rules: 'I answer only from the files you can read, under fixed rules a question cannot change; what a file says is data to me, never instructions.',
};
const NO_WORDS =
  'The question holds no words to search the drive for. Ask what the files say about something, e.g. "What notice period does the office lease give?"';
const NEXT = 'Try other words, name the files to ask about with fileIds, or ask whoever keeps the file to share it with you.';

/** Search the drive as the caller: every key word, else any of them (websearch syntax), best first. */
async function search(tools: Toolbox, keys: string[], scoped: boolean): Promise<Candidate[]> {
  const limit = scoped ? 100 : 20;
  const within = (sep: string) => keys.reduce((q, k) => (q === '' ? k : `${q}${sep}${k}`.length <= 256 ? `${q}${sep}${k}` : q), '');
  const queries = [within(' '), ...(keys.length > 1 ? [within(' or ')] : [])];
  for (const query of queries) {
    const res = (await tools.call('files.list', { query, limit })) as { files: FileView[]; hits?: Hit[] };
    const byId = new Map(res.files.map((f) => [f.id, f]));
    const found = (res.hits ?? []).flatMap((hit) => {
      const file = byId.get(hit.fileId);
      return file && file.kind !== 'folder' ? [{ file, hit }] : [];
    });
    if (found.length) return found;
  }
  return [];
}

/** The files of fileIds that no search hit found, read as the caller. */
async function scopedFiles(tools: Toolbox, fileIds: string[]): Promise<Candidate[]> {
  const out: Candidate[] = [];
  for (const fileId of fileIds.slice(0, MAX_CANDIDATES)) {
    const { file } = (await tools.call('files.get', { fileId })) as { file: FileView };
    out.push({ file, hit: null });
  }
  return out;
}

const KIND: Record<FileView['kind'], string> = { folder: 'folder', doc: 'doc', sheet: 'sheet', deck: 'deck', upload: 'file' };

/** How the answer names a file: `the doc "Lease" (fil_…)`, or only its id when its name holds a number. */
function where(file: FileView): string {
  const name = safeText(file.name, '');
  return name ? `the ${KIND[file.kind]} "${name}" (${file.id})` : `the ${KIND[file.kind]} ${file.id}`;
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** A draft starting with the file: a claim citing it, so its name in the answer is a cited record's. */
function begin(file: FileView): DraftBuilder {
  const b = new DraftBuilder();
  b.note(`${cap(where(file))} is a ${KIND[file.kind]} you can read.`, [record(file.id)]);
  return b;
}

const OFFLINE = 'Quoted as written by the offline answerer (no model): it holds most of the words of your question.';

async function fromDoc(tools: Toolbox, file: FileView, keys: string[]): Promise<Draft | null> {
  let best: { cite: string; text: string; score: number } | null = null;
  let cursor: string | undefined;
  for (let page = 0; page < MAX_DOC_PAGES; page++) {
    const res = (await tools.call('files.docRead', { fileId: file.id, format: 'text', limit: 500, ...(cursor ? { cursor } : {}) })) as {
      blocks: { cite: string; text?: string }[];
      nextCursor: string | null;
    };
    for (const blk of res.blocks) {
      const sc = score(blk.text ?? '', keys);
      if (sc > 0 && (!best || sc > best.score)) best = { cite: blk.cite, text: blk.text ?? '', score: sc };
    }
    if (!res.nextCursor) break;
    cursor = res.nextCursor;
  }
  const passage = best ? passageOf(best.text, keys) : '';
  if (!best || !passage) return null;
  const b = begin(file);
  const q = b.quote(passage, [record(best.cite)]);
  return b
    .say(`${cap(where(file))} says: "${q}"`)
    .say(`${OFFLINE} Read the whole doc with files.docRead.`)
    .build();
}

const colOf = (a1: string) => [...(/^[A-Z]+/.exec(a1)?.[0] ?? '')].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0);
const rowOf = (a1: string) => /\d+$/.exec(a1)?.[0] ?? '';

async function fromSheet(tools: Toolbox, file: FileView, keys: string[]): Promise<Draft | null> {
  const first = (await tools.call('files.sheetRead', { fileId: file.id })) as { tabId: string; tabs: { id: string }[]; cells: Cell[] };
  let best: { cell: Cell; row: Cell[]; score: number } | null = null;
  for (const tab of first.tabs.slice(0, MAX_TABS)) {
    let cells: Cell[];
    try {
      cells = tab.id === first.tabId ? first.cells : ((await tools.call('files.sheetRead', { fileId: file.id, tabId: tab.id })) as { cells: Cell[] }).cells;
    } catch (err) {
      if (err instanceof ToolError) continue; // a tab too large to read whole: the others still may answer
      throw err;
    }
    for (const cell of cells) {
      if (!cell.cite || typeof cell.value !== 'string') continue;
      const sc = score(cell.value, keys);
      if (sc > 0 && (!best || sc > best.score)) best = { cell, row: cells, score: sc };
    }
  }
  if (!best) return null;
  const label = best.cell;
  const text = passageOf(label.value as string, keys);
  if (!text) return null;
  const beside = best.row
    .filter((c) => c.cite && rowOf(c.a1) === rowOf(label.a1) && colOf(c.a1) > colOf(label.a1) && c.value !== null && c.value !== '')
    .sort((x, y) => colOf(x.a1) - colOf(y.a1))
    .slice(0, MAX_BESIDE);
  const b = begin(file);
  const lq = b.quote(text, [record(label.cite!)]);
  const parts = beside.map((c) => {
    if (typeof c.value === 'number' && Number.isSafeInteger(c.value))
      return `${c.a1} is ${b.fact(valueOf(c, record(c.cite!), 'value', 'count'), (v) => `${c.a1} is ${v}.`)}`;
    const shown = typeof c.value === 'string' ? passageOf(c.value, keys) : (c.shown ?? '');
    return shown ? `${c.a1} shows "${b.quote(shown, [record(c.cite!)])}"` : null;
  });
  const shownParts = parts.filter((p): p is string => p !== null);
  const row = shownParts.length ? `; beside it, ${list(shownParts)}` : '';
  return b
    .say(`In ${where(file)}, ${label.a1} reads "${lq}"${row}.`)
    .say(`${OFFLINE} Read the sheet with files.sheetRead.`)
    .build();
}

/** A slide's lines: its title, then its body's and notes' lines without list or heading marks. */
function linesOf(slide: { title: string; body: string; notes: string }): string[] {
  const strip = (l: string) => l.replace(/^\s*(?:[#>*+-]+|\d+[.)])\s+/, '').trim();
  return [slide.title, ...slide.body.split('\n').map(strip), ...slide.notes.split('\n').map((l) => l.trim())].filter((l) => l !== '');
}

async function fromDeck(tools: Toolbox, file: FileView, keys: string[]): Promise<Draft | null> {
  const res = (await tools.call('files.deckRead', { fileId: file.id })) as { slides: { cite: string; title: string; body: string; notes: string }[] };
  let best: { cite: string; line: string; score: number } | null = null;
  for (const slide of res.slides) {
    for (const line of linesOf(slide)) {
      const sc = score(line, keys);
      if (sc > 0 && (!best || sc > best.score)) best = { cite: slide.cite, line, score: sc };
    }
  }
  const passage = best ? passageOf(best.line, keys) : '';
  if (!best || !passage) return null;
  const b = begin(file);
  const q = b.quote(passage, [record(best.cite)]);
  return b
    .say(`${cap(where(file))} has a slide saying: "${q}"`)
    .say(`${OFFLINE} Read the deck with files.deckRead.`)
    .build();
}

/** An upload: the search's passage (its snippet's fragment holding most words), citing the file. */
function fromHit(file: FileView, hit: Hit | null, keys: string[]): Draft | null {
  if (!hit || hit.matched !== 'text') return null;
  const fragments = hit.passage.split(' … ').filter((f) => f.trim() !== '' && f.trim() !== file.name.trim());
  const best = fragments.map((f) => ({ f: f.replace(/\s+/g, ' ').trim(), sc: score(f, keys) })).sort((x, y) => y.sc - x.sc)[0];
  if (!best || best.sc === 0) return null;
  const b = begin(file);
  const q = b.quote(best.f, [record(hit.cite)]);
  return b
    .say(`${cap(where(file))} says, as the drive's search found it: "${q}"`)
    .say(`${OFFLINE} Download the file with files.exportRequest to read it whole.`)
    .build();
}

async function fromFile(tools: Toolbox, c: Candidate, keys: string[]): Promise<Draft | null> {
  switch (c.file.kind) {
    case 'doc':
      return (await fromDoc(tools, c.file, keys)) ?? fromHit(c.file, c.hit, keys);
    case 'sheet':
      return (await fromSheet(tools, c.file, keys)) ?? fromHit(c.file, c.hit, keys);
    case 'deck':
      return (await fromDeck(tools, c.file, keys)) ?? fromHit(c.file, c.hit, keys);
    case 'upload':
      return fromHit(c.file, c.hit, keys);
    case 'folder':
      return null;
  }
}

/** Search, read, quote. Exported for the tests. */
export async function answerFromDrive(input: Pick<AskInput, 'question'>, tools: Toolbox): Promise<Draft> {
  const { question, fileIds } = scopeOf(input.question);
  const guard = asksToAct(question);
  if (guard) return cannot(GUARDS[guard]);
  const keys = keywords(question);
  if (keys.length === 0) return cannot(NO_WORDS);
  try {
    let candidates = await search(tools, keys, fileIds !== null);
    if (candidates.length === 0 && fileIds !== null) candidates = await scopedFiles(tools, fileIds);
    for (const c of candidates.slice(0, MAX_CANDIDATES)) {
      const draft = await fromFile(tools, c, keys);
      if (draft) return draft;
    }
    const who = fileIds === null ? 'No file you can read answers this' : 'None of the files you named (fileIds) answers this';
    if (candidates.length === 0)
      return cannot(`${who}: searching the drive as you (files.list with a query of its words) found no file matching the question. ${NEXT}`);
    const read = candidates.slice(0, MAX_CANDIDATES).map((c) => c.file.id);
    return cannot(
      `${who}: the best matches I read (${read.join(', ')}) hold no passage with the question's words. Read them yourself with files.docRead, files.sheetRead or files.deckRead, or ${NEXT.charAt(0).toLowerCase()}${NEXT.slice(1)}`,
    );
  } catch (err) {
    if (err instanceof ToolError) return cannot(`A read this question needs was refused (${err.message}), so I cannot answer it.`);
    throw err;
  }
}
