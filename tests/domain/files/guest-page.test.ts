import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { driveOrg, type DriveOrg } from './drive-kit.js';
import { makeDoc } from './docs-kit.js';
import { ok } from '../../helpers/calls.js';

/* The guest page of a shared doc (GET /share/<token>) reads like the document: semantic HTML from its blocks, hostile text inert. */

let o: DriveOrg;
beforeAll(async () => {
  o = await driveOrg();
});
afterAll(() => o.s.close());

const page = (url: string) => o.s.app.inject({ method: 'GET', url: url.replace(/^https?:\/\/[^/]+/, '') });

async function sharedPage(content: unknown, kind = 'doc'): Promise<{ body: string; headers: Record<string, unknown>; fileId: string }> {
  const doc = kind === 'doc' ? await makeDoc(o, o.mia.key, content) : (await ok(o.s, 'files.create', { kind, name: `A ${kind}`, content }, o.mia.key)).file;
  const { guestUrl } = await ok(o.s, 'files.shareGrant', { fileId: doc.id, grantee: { email: 'client@outside.example' }, role: 'viewer' }, o.mia.key);
  const res = await page(guestUrl);
  expect(res.statusCode).toBe(200);
  return { body: res.body, headers: res.headers, fileId: doc.id };
}

/** The document part of the page: what the kind rendered. */
const article = (body: string) => /<article>([\s\S]*)<\/article>/.exec(body)?.[1] ?? '';

describe('the guest page of a doc', () => {
  it('renders headings, paragraphs, emphasis, lists, quotes, code and links as HTML, under the strict CSP', async () => {
    const markdown = [
      '# Quarterly plan',
      '',
      'Targets with **bold**, *italic*, ~~struck~~ and `code`, and a [source](https://example.com/a?b=1&c=2).',
      '',
      '## Steps',
      '',
      '- hire two',
      '- ship the report',
      '',
      '1. first',
      '2. second',
      '',
      '> Quoted from the board.',
      '',
      '```',
      'total = 42',
      '```',
    ].join('\n');
    const { body, headers } = await sharedPage({ markdown });
    const doc = article(body);
    expect(doc).toMatch(/<h1 id="blk_[^"]+">Quarterly plan<\/h1>/);
    expect(doc).toMatch(/<h2 id="blk_[^"]+">Steps<\/h2>/);
    expect(doc).toContain('<strong>bold</strong>');
    expect(doc).toContain('<em>italic</em>');
    expect(doc).toContain('<s>struck</s>');
    expect(doc).toContain('<code>code</code>');
    expect(doc).toContain('<a href="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer nofollow">source</a>');
    expect(doc).toMatch(/<ul id="blk_[^"]+">\n<li><p>hire two<\/p>\n<\/li>\n<li><p>ship the report<\/p>\n<\/li>\n<\/ul>/);
    expect(doc).toMatch(/<ol id="blk_[^"]+">\n<li><p>first<\/p>\n<\/li>/);
    expect(doc).toMatch(/<blockquote id="blk_[^"]+">\n<p>Quoted from the board.<\/p>\n<\/blockquote>/);
    expect(doc).toMatch(/<pre id="blk_[^"]+"><code>total = 42<\/code><\/pre>/);
    expect(body).not.toContain('<pre>Quarterly plan');
    expect(headers['content-security-policy']).toContain("default-src 'none'");
    expect(headers['content-security-policy']).not.toContain('unsafe-inline');
  });

  it('shows hostile text as text: script tags, event attributes and javascript: links never become markup', async () => {
    const markdown = [
      'Before <script>alert("x")</script> after.',
      '',
      '<img src=x onerror="alert(1)"> and <a href="javascript:alert(2)">raw</a>',
      '',
      '[click](javascript:alert(3)) and [data](data:text/html,<b>x</b>)',
    ].join('\n');
    const { body } = await sharedPage({ markdown });
    const doc = article(body);
    expect(doc).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(doc).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;');
    expect(body).not.toMatch(/<script/i);
    expect(body).not.toMatch(/<img/i);
    expect(body).not.toMatch(/<[^>]*\son[a-z]+\s*=/i);
    expect(body).not.toMatch(/href\s*=\s*"(javascript|data):/i);
  });

  it('keeps another file of the org and its images out: an internal link is plain text, an image its alt text', async () => {
    const other = await makeDoc(o, o.mia.key, { markdown: 'Private notes.' });
    const json = {
      type: 'doc',
      content: [
        { type: 'paragraph', content: [{ type: 'text', text: 'See the notes', marks: [{ type: 'link', attrs: { href: other.id } }] }] },
        { type: 'image', attrs: { src: other.id, alt: 'the org chart' } },
      ],
    };
    const { body } = await sharedPage(json);
    const doc = article(body);
    expect(doc).toContain('<p id="');
    expect(doc).toContain('>See the notes</p>');
    expect(doc).toContain('<span class="image">[image: the org chart]</span>');
    expect(body).not.toContain(other.id);
  });

  it('an empty doc says so', async () => {
    const { body } = await sharedPage(undefined);
    expect(body).toMatch(/<p id="blk_[^"]+"><\/p>|This file is empty\./);
  });
});

describe('the guest page of a sheet and of a deck', () => {
  it('a sheet shows each tab as a table of computed values, text escaped', async () => {
    const content = { tabs: [{ title: 'Costs <Q1>', cells: { A1: 'Item', B1: 'Amount', A2: '<b>Rent</b>', B2: '1200', A3: 'Total', B3: '=SUM(B2:B2)*2' } }] };
    const { body } = await sharedPage(content, 'sheet');
    const page = article(body);
    expect(page).toContain('<h2>Costs &lt;Q1&gt;</h2>');
    expect(page).toContain('<tr><td>Item</td><td>Amount</td></tr>');
    expect(page).toContain('<tr><td>&lt;b&gt;Rent&lt;/b&gt;</td><td>1200</td></tr>');
    expect(page).toContain('<tr><td>Total</td><td>2400</td></tr>');
    expect(body).not.toMatch(/<b>/);
  });

  it('a deck shows its slides, titles and bodies escaped, without the speaker notes', async () => {
    const content = {
      slides: [{ title: 'Why <now>', body: 'The market moved.\n\n<script>alert(1)</script>', notes: 'Private: say the number last.' }, { title: '' }],
    };
    const { body } = await sharedPage(content, 'deck');
    const page = article(body);
    expect(page).toContain('<h2>1. Why &lt;now&gt;</h2>');
    expect(page).toContain('<p>The market moved.</p>');
    expect(page).toContain('<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>');
    expect(page).toContain('<h2>2. Slide 2</h2>');
    expect(body).not.toContain('say the number last');
    expect(body).not.toMatch(/<script/i);
  });
});
