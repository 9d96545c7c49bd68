import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { docBlockFromJson } from '../../../protocol/doc-schema.js';
import { ApiError } from '../../../protocol/errors.js';
import { blocksToMarkdown, markdownToBlocks } from '../../../domain/files/docs/markdown.js';

/*
 * GFM in and out of the doc model: a doc written as Markdown reads back as the same doc (property over generated
 * docs of every node and mark the model has), and what Markdown cannot say of the model is refused, not dropped.
 */

const stripIds = (json: any): any => {
  if (Array.isArray(json)) return json.map(stripIds);
  if (json && typeof json === 'object') {
    const out: any = {};
    for (const [k, v] of Object.entries(json)) out[k] = k === 'attrs' ? { ...(v as object), id: null } : stripIds(v);
    if (out.attrs && json.type && !('id' in json.attrs)) delete out.attrs.id;
    return out;
  }
  return json;
};
const roundTrip = (blocks: any[]) =>
  markdownToBlocks(blocksToMarkdown(blocks.map((b, i) => docBlockFromJson(b, `blocks.${i}`))), 'md').map((n) => stripIds(n.toJSON()));
const normal = (blocks: any[]) => blocks.map((b, i) => stripIds(docBlockFromJson(b, `blocks.${i}`).toJSON()));

// Words include Markdown's own punctuation, so escaping is exercised.
const word = fc.stringMatching(/^[A-Za-z0-9*_`#<>&!~+\-.()[\]=@:;]{1,8}$/);
const plainWord = fc.stringMatching(/^[A-Za-z0-9]{1,8}$/);
const markSet = fc.oneof(
  fc.constant([] as any[]),
  fc.subarray([{ type: 'bold' }, { type: 'italic' }, { type: 'strike' }], { minLength: 1 }),
  fc.constant([{ type: 'code' }]),
  fc.constantFrom('https://example.com/a', 'mailto:a@example.com', 'fil_abc123#blk_x1').map((href) => [{ type: 'link', attrs: { href } }]),
);
const segment = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.array(word, { minLength: 1, maxLength: 3 }), markSet)
      .map(([ws, marks]) => ({ type: 'text', text: ws.join(' '), ...(marks.length ? { marks } : {}) })),
  },
  { weight: 1, arbitrary: fc.constantFrom('usr_alice01', 'agt_bot0002').map((id) => ({ type: 'mention', attrs: { id } })) },
);
/** Inline content: segments joined by single spaces (a hard break sometimes, never in a heading: Markdown has none there). */
const inlineOf = (breaks: boolean) =>
  fc.array(fc.tuple(segment, fc.boolean()), { minLength: 1, maxLength: 5 }).map((segs) => {
    const out: any[] = [];
    segs.forEach(([s, hard], i) => {
      if (i > 0) out.push(hard && breaks ? { type: 'hardBreak' } : { type: 'text', text: ' ' });
      out.push(s);
    });
    return out;
  });
const inline = inlineOf(true);
const paragraph = inline.map((content) => ({ type: 'paragraph', content }));
const leaf = fc.oneof(
  { weight: 5, arbitrary: paragraph },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.integer({ min: 1, max: 6 }), inlineOf(false)).map(([level, content]) => ({ type: 'heading', attrs: { level }, content })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.array(fc.stringMatching(/^[ -~]{0,30}$/), { minLength: 1, maxLength: 4 }), fc.constantFrom(null, 'ts', 'python'))
      .map(([lines, language]) => ({
        type: 'codeBlock',
        attrs: { language },
        ...(lines.join('\n') ? { content: [{ type: 'text', text: lines.join('\n') }] } : {}),
      })),
  },
  { weight: 1, arbitrary: fc.constant({ type: 'horizontalRule' }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('fil_img0001', 'fil_img0002'), fc.option(plainWord, { nil: null }))
      .map(([src, alt]) => ({ type: 'image', attrs: { src, alt } })),
  },
);
const { block } = fc.letrec((tie) => ({
  block: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('list'), tie('quote')),
  item: fc.tuple(paragraph, fc.option(tie('list'), { nil: undefined })).map(([p, sub]) => ({ type: 'listItem', content: sub ? [p, sub] : [p] })),
  list: fc
    .tuple(fc.boolean(), fc.integer({ min: 1, max: 30 }), fc.array(tie('item'), { minLength: 1, maxLength: 3 }))
    .map(([ordered, start, items]) => (ordered ? { type: 'orderedList', attrs: { start }, content: items } : { type: 'bulletList', content: items })),
  quote: fc.array(fc.oneof(paragraph, tie('list')), { minLength: 1, maxLength: 2 }).map((content) => ({ type: 'blockquote', content })),
}));

describe('Markdown round trip', () => {
  it('a generated doc written as Markdown reads back as the same doc', () => {
    fc.assert(
      fc.property(fc.array(block, { minLength: 1, maxLength: 6 }), (blocks) => {
        expect(roundTrip(blocks)).toEqual(normal(blocks));
      }),
      { numRuns: Number(process.env.DOC_MD_RUNS ?? 400) },
    );
  });

  it('reads GFM: strikethrough, fences with a language, hard breaks, autolinks, mentions; tables stay text; HTML stays text', () => {
    const md = '~~gone~~ <https://a.test> <@usr_x1> <b>x</b>\\\nnext\n\n```js\nlet a;\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |';
    const json = markdownToBlocks(md, 'md').map((n) => n.toJSON());
    expect(json[0].content).toEqual([
      { type: 'text', marks: [{ type: 'strike' }], text: 'gone' },
      { type: 'text', text: ' ' },
      { type: 'text', marks: [{ type: 'link', attrs: { href: 'https://a.test', title: null } }], text: 'https://a.test' },
      { type: 'text', text: ' ' },
      { type: 'mention', attrs: { id: 'usr_x1', label: null } },
      { type: 'text', text: ' <b>x</b>' },
      { type: 'hardBreak' },
      { type: 'text', text: 'next' },
    ]);
    expect(json[1]).toMatchObject({ type: 'codeBlock', attrs: { language: 'js' }, content: [{ text: 'let a;' }] });
    expect(json[2]).toMatchObject({ type: 'paragraph' });
    expect(blocksToMarkdown(markdownToBlocks('a <b> & &amp; <@usr_x1>', 'md'))).toBe('a <b> & & <@usr_x1>');
    // Text that looks like syntax is escaped so it reads back as text.
    const tricky = docBlockFromJson({ type: 'paragraph', content: [{ type: 'text', text: '<@usr_x1> &amp; <https://x.test> *a*' }] }, 'b');
    expect(markdownToBlocks(blocksToMarkdown([tricky]), 'md')[0].toJSON()).toEqual(tricky.toJSON());
  });

  it('an image among text becomes its own block; nothing is dropped', () => {
    const json = markdownToBlocks('Before ![pic](fil_a1) after.\n\n# Title ![x](fil_b2)', 'md').map((n) => n.toJSON());
    expect(json.map((b) => b.type)).toEqual(['paragraph', 'image', 'paragraph', 'heading', 'image']);
    expect(json[0].content[0].text).toBe('Before');
    expect(json[2].content[0].text).toBe('after.');
  });

  it('a link markdown-it will not make (javascript:) stays text', () => {
    expect(markdownToBlocks('[x](javascript:alert(1))', 'md')[0].toJSON().content).toEqual([{ type: 'text', text: '[x](javascript:alert(1))' }]);
  });

  it('refuses what the model cannot hold, naming the field', () => {
    const refusal = (md: string) => {
      try {
        markdownToBlocks(md, 'ops.3.markdown');
      } catch (err) {
        expect(err).toBeInstanceOf(ApiError);
        return (err as ApiError).message;
      }
      throw new Error('accepted');
    };
    expect(refusal('![x](https://x.test/a.png)')).toMatch(/^ops\.3\.markdown: .*image "https:\/\/x\.test\/a\.png" must point at a file of the org/);
    expect(refusal('[x](ftp://x.test)')).toMatch(/link "ftp:\/\/x\.test" must point at/);
    expect(refusal('- '.repeat(40) + 'deep')).toMatch(/^ops\.3\.markdown: nested more than 30 levels/);
    expect(refusal('a\u0000b')).toMatch(/NUL/);
  });
});

describe('any Markdown input', () => {
  const mdChars = fc.constantFrom(
    ...'#*_`~[]()<>!-+=|:>@&;\\\n \t1.)'.split(''),
    'fil_a1',
    'usr_b2',
    '<@usr_x1>',
    'http://x.test',
    '![a](',
    '```',
    '\n\n',
    '    ',
    'é',
    '😀',
  );
  const anyMd = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.array(fc.oneof(mdChars, fc.string({ maxLength: 3 })), { maxLength: 80 }).map((a) => a.join('')),
  );

  it('is read into valid blocks or refused by name, never an internal error; what is read writes and reads again', () => {
    fc.assert(
      fc.property(anyMd, (md) => {
        let blocks;
        try {
          blocks = markdownToBlocks(md, 'md');
        } catch (err) {
          expect(err).toBeInstanceOf(ApiError);
          return;
        }
        for (const b of blocks) b.check();
        const again = markdownToBlocks(blocksToMarkdown(blocks), 'md');
        for (const b of again) b.check();
      }),
      { numRuns: Number(process.env.DOC_MD_RUNS ?? 400) },
    );
  });
});
