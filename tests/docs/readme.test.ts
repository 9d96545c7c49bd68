import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * The documents stay a newcomer's README and pages under docs/ that hold together: the README is short, every
 * relative link lands on a file of the repository, the decisions' index lists exactly the decision files, and no
 * page cites a path outside the repository. Each failure names the file, the line and the link.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const README_MAX_LINES = 300;
const DECISIONS = join(ROOT, 'docs/decisions');

/** Folders that hold no documents of ours: dependencies, build output, local data, test artifacts. */
const SKIP_DIRS = new Set(['node_modules', 'dist', 'artifacts']);

/** Every markdown file of the repository, relative to the root (hidden folders such as .git and .data left out). */
function markdownFiles(dir = ROOT): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.') || SKIP_DIRS.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...markdownFiles(path));
    else if (name.endsWith('.md')) out.push(relative(ROOT, path).split(sep).join('/'));
  }
  return out.sort();
}

/** The documents whose links are checked: README.md, CONTRIBUTING.md and everything under docs/. */
const LINKED = markdownFiles().filter((f) => f === 'README.md' || f === 'CONTRIBUTING.md' || f.startsWith('docs/'));

interface Line {
  no: number;
  text: string;
}

/** The lines outside fenced code blocks, with inline code spans blanked (a path in code is not a link). */
function proseLines(file: string): Line[] {
  const out: Line[] = [];
  let fence: string | undefined;
  readFileSync(join(ROOT, file), 'utf8')
    .split('\n')
    .forEach((text, i) => {
      const marker = /^\s*(```|~~~)/.exec(text)?.[1];
      if (marker && (!fence || fence === marker)) {
        fence = fence ? undefined : marker;
        return;
      }
      if (!fence) out.push({ no: i + 1, text: text.replace(/(`+)[^`]*?\1/g, 'code') });
    });
  return out;
}

/** Inline links and images `[text](target "title")`, and reference definitions `[id]: target`. */
const INLINE = /!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
const DEFINITION = /^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/;

interface Link {
  file: string;
  line: number;
  target: string;
}

function links(file: string): Link[] {
  const out: Link[] = [];
  for (const { no, text } of proseLines(file)) {
    for (const m of text.matchAll(INLINE)) out.push({ file, line: no, target: m[1].replace(/^<|>$/g, '') });
    const def = DEFINITION.exec(text);
    if (def) out.push({ file, line: no, target: def[1].replace(/^<|>$/g, '') });
  }
  return out;
}

/** A link to another site or a mail address, not a file of the repository. */
const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');

/** Where a relative link points, without its anchor or query; undefined for an anchor within the page. */
function resolveLink(link: Link): string | undefined {
  const path = decodeURIComponent(link.target.replace(/[#?].*$/, ''));
  if (path === '') return undefined;
  return path.startsWith('/') ? join(ROOT, path) : resolve(ROOT, dirname(link.file), path);
}

describe('README.md', () => {
  it(`is at most ${README_MAX_LINES} lines`, () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\n$/, '').split('\n').length;
    expect(lines, `README.md has ${lines} lines; move sections to a page under docs/ and link it`).toBeLessThanOrEqual(README_MAX_LINES);
  });
});

describe('relative links', () => {
  it('are checked in README.md, CONTRIBUTING.md and docs/**/*.md', () => {
    expect(LINKED).toContain('README.md');
    expect(LINKED).toContain('CONTRIBUTING.md');
    expect(LINKED).toContain('docs/decisions/README.md');
  });

  it('point at files that exist inside the repository (anchors ignored)', () => {
    const broken: string[] = [];
    for (const file of LINKED) {
      for (const link of links(file)) {
        if (isExternal(link.target)) continue;
        const path = resolveLink(link);
        if (path === undefined) continue;
        const where = `${file}:${link.line}: (${link.target})`;
        if (path !== ROOT && !path.startsWith(ROOT + sep)) broken.push(`${where} leaves the repository`);
        else if (!existsSync(path)) broken.push(`${where} -> ${relative(ROOT, path)} does not exist`);
      }
    }
    expect(broken, `broken links:\n${broken.join('\n')}`).toEqual([]);
  });
});

describe('docs/decisions/', () => {
  const files = readdirSync(DECISIONS).filter((f) => f !== 'README.md').sort();
  const index = readFileSync(join(DECISIONS, 'README.md'), 'utf8');
  /** The index's rows: `| 0001 | [Title](0001-title.md) | accepted | 2026-11-22 |`. */
  const rows = [...index.matchAll(/^\|\s*(\d{4})\s*\|\s*\[(.+)\]\(([^)]+)\)\s*\|\s*([^|]+?)\s*\|\s*(\d{4}-\d{2}-\d{2})\s*\|\s*$/gm)].map((m) => ({
    number: m[1],
    title: m[2].replace(/\\\|/g, '|'),
    file: m[3],
    status: m[4],
    date: m[5],
  }));

  it('holds only numbered records NNNN-short-title.md', () => {
    const odd = files.filter((f) => !/^\d{4}-[a-z0-9]+(?:-[a-z0-9]+)*\.md$/.test(f));
    expect(odd, `docs/decisions/ files not named NNNN-short-title.md: ${odd.join(', ')}`).toEqual([]);
  });

  it('README.md lists every file in docs/decisions/ and nothing else', () => {
    const listed = rows.map((r) => r.file);
    const missing = files.filter((f) => !listed.includes(f));
    const extra = listed.filter((f) => !files.includes(f));
    expect(missing, `docs/decisions/README.md does not list: ${missing.join(', ')}`).toEqual([]);
    expect(extra, `docs/decisions/README.md lists files that do not exist: ${extra.join(', ')}`).toEqual([]);
    expect(listed, 'docs/decisions/README.md lists a file twice, or out of number order').toEqual(files);
  });

  it('each record starts with its title and a status line the index repeats', () => {
    const wrong: string[] = [];
    for (const row of rows) {
      if (!files.includes(row.file)) continue;
      const [title, , status] = readFileSync(join(DECISIONS, row.file), 'utf8').split('\n');
      const where = `docs/decisions/${row.file}`;
      if (!row.file.startsWith(`${row.number}-`)) wrong.push(`${where}: listed as number ${row.number}`);
      if (title !== `# ${row.title}`) wrong.push(`${where}: first line ${JSON.stringify(title)}, the index says "# ${row.title}"`);
      const m = /^Status: (\S.*?) · Date: (\d{4}-\d{2}-\d{2})$/.exec(status ?? '');
      if (!m) wrong.push(`${where}: third line ${JSON.stringify(status)} is not "Status: <status> · Date: YYYY-MM-DD"`);
      else if (m[1] !== row.status || m[2] !== row.date) wrong.push(`${where}: status "${m[1]}" and date ${m[2]}, the index says "${row.status}" and ${row.date}`);
    }
    expect(wrong, wrong.join('\n')).toEqual([]);
  });

  it('replaces docs/decisions.md', () => {
    expect(existsSync(join(ROOT, 'docs/decisions.md')), 'docs/decisions.md is back: add a file under docs/decisions/ instead').toBe(false);
  });
});

describe('no markdown file cites a path outside the repository', () => {
  it('names no /work/ path and no ../shared beyond the spec drift check of .ci/run', () => {
    const found: string[] = [];
    let specMentions = 0;
    for (const file of markdownFiles()) {
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .forEach((text, i) => {
          const where = `${file}:${i + 1}`;
          if (text.includes('/work/')) found.push(`${where}: cites /work/`);
          for (const m of text.matchAll(/\.\.\/shared\b\S*/g)) {
            // What .ci/run checks: docs/spec against the upstream spec beside the repository, when it is there.
            if (m[0].startsWith('../shared/spec') && text.includes('.ci/run')) specMentions += 1;
            else found.push(`${where}: cites ${m[0]}`);
          }
        });
    }
    expect(found, found.join('\n')).toEqual([]);
    expect(specMentions, 'mentions of ../shared/spec beside .ci/run (the drift check): at most the two that describe it').toBeLessThanOrEqual(2);
  });
});
