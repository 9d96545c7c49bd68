import { describe, expect, it } from 'vitest';
import { INT32_MAX } from '../../protocol/schema.js';
import { intFields } from '../helpers/schema-walk.js';

/*
 * An integer param that reaches an `integer` column (a version, revision, position, seq or count) stays within
 * INT32_MAX: past it PostgreSQL refuses the query and the caller got a 500 (branding.listVersions' cursor did).
 * Every integer field of every deployed contract says so with its maximum, or is listed here with the bigint
 * column (or the offset) it reaches. zod's .int() alone allows up to 2^53 - 1: that is the miss this catches.
 */

/** Fields that may pass INT32_MAX, by `<method> <path>`, and why each is safe. */
const BIGINT_FIELDS: { fields: RegExp; why: string }[] = [
  {
    fields: /^(GET events|GET ops|board\.task(Attachments|Comments)|books\.\w+|calendar\.list) cursor$/,
    why: 'the shared cursor: a bigint seq (events, ai_audit, board_comments, board_attachments), a bigint identity n (books_*), or an offset (calendar.list, against a bigint rank())',
  },
  { fields: /^(messaging\.history (after|around|before)|channel\.markRead seq)$/, why: 'messages.seq and channel_members.last_read_seq are bigint' },
  { fields: /^hierarchy\.set expectedRevision$/, why: 'org_charts.revision is bigint' },
  { fields: /Cents$/, why: 'money is bigint cents (books_*, crm_*, books_settings), or JSON in compact terms; each has its own ceiling' },
  { fields: /^cost\.report entries\.0\.(inputTokens|outputTokens|cacheReadTokens|costMicroUsd)$/, why: 'cost_entries counts are bigint' },
  {
    fields: /^(board\.(add|update)TaskAttachment|files\.uploadRegister) sizeBytes$/,
    why: 'board_attachments.size_bytes, files.size_bytes and blobs.size_bytes are bigint',
  },
];

const fields = intFields();
const wide = fields.filter((f) => f.max > INT32_MAX);
const allowed = (name: string) => BIGINT_FIELDS.some((b) => b.fields.test(name));

describe('integer params stay within an integer column', () => {
  it('the walk reaches the integer fields (it cannot pass by finding none)', () => {
    expect(fields.length).toBeGreaterThan(200);
    expect(fields.map((f) => f.name)).toEqual(expect.arrayContaining(['charter.update baseVersion', 'crm.updateDeal expectedVersion', 'GET events cursor']));
  });

  it('every integer field past INT32_MAX is a listed bigint one', () => {
    expect(wide.filter((f) => !allowed(f.name)).map((f) => `${f.name} (at most ${f.max})`)).toEqual([]);
  });

  it('no field sits above 2^53 - 1 (the JSON number range that stays exact)', () => {
    expect(fields.filter((f) => f.max > Number.MAX_SAFE_INTEGER).map((f) => f.name)).toEqual([]);
  });

  it('every listed entry still names a field past INT32_MAX (no stale entry)', () => {
    expect(BIGINT_FIELDS.filter((b) => !wide.some((f) => b.fields.test(f.name))).map((b) => String(b.fields))).toEqual([]);
  });
});
