import { describe, expect, it } from 'vitest';
import { splitQuoted } from '../../../domain/email/index.js';

/** The quoted-text splitter email.thread collapses with: the tail that repeats earlier mail, and only the tail. */
describe('splitQuoted', () => {
  it('cuts at an attribution line, wrapped or not, and at a trailing run of > lines', () => {
    expect(splitQuoted('Yes.\n\nOn Tue, 3 Mar 2026 at 10:00, Ann <ann@x.com> wrote:\n> Can you?\n')).toEqual({
      body: 'Yes.',
      quoted: 'On Tue, 3 Mar 2026 at 10:00, Ann <ann@x.com> wrote:\n> Can you?',
    });
    expect(splitQuoted('Yes.\nOn Tue, 3 Mar 2026 at 10:00, Ann Lee <ann@x.com>\nwrote:\n> Can you?')).toEqual({
      body: 'Yes.',
      quoted: 'On Tue, 3 Mar 2026 at 10:00, Ann Lee <ann@x.com>\nwrote:\n> Can you?',
    });
    expect(splitQuoted('Fine\r\n> a\r\n>\r\n> b\r\n')).toEqual({ body: 'Fine', quoted: '> a\n>\n> b' });
  });

  it('cuts at Outlook headers and original-message markers; keeps answers between quotes', () => {
    expect(splitQuoted('Done\n\nFrom: Ann Lee\nSent: Monday\nTo: Sales\nSubject: Q\n\nold').quoted).toMatch(/^From: Ann Lee\nSent: Monday/);
    expect(splitQuoted('Done\n-----Original Message-----\nold').body).toBe('Done');
    const interleaved = '> first question\nanswer one\n> second question\nanswer two';
    expect(splitQuoted(interleaved)).toEqual({ body: interleaved, quoted: null });
    expect(splitQuoted('Plain text, no quote.\n')).toEqual({ body: 'Plain text, no quote.', quoted: null });
    expect(splitQuoted('')).toEqual({ body: '', quoted: null });
    // "From:" in a sentence is not a header block.
    expect(splitQuoted('From: my side, all good.\nThanks').quoted).toBeNull();
  });
});
