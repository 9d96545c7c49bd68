import type { Db } from '../../db/types.js';
import { newId } from '../../domain/core/ids.js';

/*
 * A year of chat in one org, inserted in bulk as messaging.send writes it: channels with their members (the
 * caller in every one), and messages numbered 1..n per channel with last_seq at the top, a thread reply in
 * twenty, a mention of the caller in fifty. Words are drawn in SQL from a ranked vocabulary (filler words, an
 * engineering org's terms, a long tail), Zipf-like as real text is, and the database generates the search columns
 * itself, as it does for every send.
 */

/** Words that fill sentences, then an engineering org's vocabulary, then a long tail of rarer words (names, jargon). */
const FILLER = [
  'the',
  'a',
  'to',
  'for',
  'on',
  'with',
  'we',
  'I',
  'it',
  'is',
  'can',
  'should',
  'after',
  'before',
  'again',
  'please',
  'thanks',
  'today',
  'tomorrow',
  'looks',
  'good',
];
const DOMAIN = [
  'deploy',
  'failed',
  'staging',
  'production',
  'rollback',
  'release',
  'build',
  'green',
  'red',
  'pipeline',
  'review',
  'merge',
  'branch',
  'hotfix',
  'incident',
  'pager',
  'latency',
  'database',
  'migration',
  'index',
  'query',
  'cache',
  'customer',
  'invoice',
  'refund',
  'pricing',
  'contract',
  'renewal',
  'onboarding',
  'design',
  'mockup',
  'roadmap',
  'sprint',
  'standup',
  'retro',
  'blocked',
  'shipped',
];
const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ren',
  'to',
  'sa',
  'vek',
  'ul',
  'bra',
  'dor',
  'fin',
  'gal',
  'hu',
  'jex',
  'kor',
  'lin',
  'mas',
  'nor',
  'pel',
  'qui',
  'ros',
  'sul',
  'tam',
  'vin',
  'wex',
  'yor',
  'zan',
  'el',
  'ost',
  'ard',
];
const TAIL = Array.from(
  { length: 3000 },
  (_, i) => SYLLABLES[i % 30] + SYLLABLES[Math.floor(i / 30) % 30] + (i >= 900 ? SYLLABLES[Math.floor(i / 900) % 30] : ''),
);
/** Ranked by frequency: a word's index is drawn as n * u^2.5 (u uniform), so the first are common and the tail rare (Zipf-like). */
const WORDS = [...FILLER, ...DOMAIN, ...TAIL];

export interface MessagingSeed {
  channels: string[];
  /** The channel every seeded member is in (the fan-out's). */
  allHands: string;
  messages: number;
  seedMs: number;
}

/** `channels` public channels of `perChannel` messages each, plus an all-hands channel holding every member. */
export async function seedMessaging(
  db: Db,
  orgId: string,
  caller: string,
  members: readonly string[],
  channels: number,
  perChannel: number,
): Promise<MessagingSeed> {
  const started = performance.now();
  const ids = Array.from({ length: channels }, () => newId('ch'));
  const allHands = newId('ch');
  const names = ids.map((_, i) => `bench-${i}`);
  await db.query(
    `INSERT INTO channels (org_id, channel_id, kind, name, created_by, created_at, updated_at, last_seq)
     SELECT $1, id, 'public', name, $2, now() - interval '400 days', now(), $5
       FROM unnest($3::text[], $4::text[]) AS t(id, name)
     UNION ALL SELECT $1, $6, 'public', 'all-hands', $2, now() - interval '400 days', now(), 0`,
    [orgId, caller, ids, names, perChannel, allHands],
  );
  await db.query(
    `INSERT INTO channel_members (org_id, channel_id, principal_id, role, last_read_seq, added_by, added_at)
     SELECT $1, ch, $2, 'owner', ($4 * 0.9)::bigint, $2, now() - interval '400 days' FROM unnest($3::text[]) AS ch`,
    [orgId, caller, [...ids, allHands], perChannel],
  );
  await db.query(
    `INSERT INTO channel_members (org_id, channel_id, principal_id, role, added_by, added_at)
     SELECT $1, $2, p, 'member', $3, now() - interval '400 days' FROM unnest($4::text[]) AS p`,
    [orgId, allHands, caller, members],
  );
  // One channel per statement keeps each transaction's GIN pending list small.
  for (const [i, ch] of ids.entries()) {
    await db.query(
      `INSERT INTO messages (org_id, message_id, channel_id, seq, author_id, status, text, thread_id, mentions, posted_at, created_at)
       SELECT $1, 'msg_' || md5($2 || n::text), $2, n, CASE WHEN n % 3 = 0 THEN $3 ELSE ($4::text[])[1 + (n % cardinality($4::text[]))] END, 'posted',
              (SELECT string_agg(($5::text[])[1 + floor(power(random(), 2.5) * cardinality($5::text[]))::int], ' ') FROM generate_series(1, 6 + (n % 14)) WHERE n > 0),
              CASE WHEN n % 20 = 0 AND n > 20 THEN 'msg_' || md5($2 || (n - 7)::text) END,
              CASE WHEN n % 50 = 0 THEN ARRAY[$3] ELSE '{}' END,
              now() - make_interval(secs => ($6 - n) * 3000), now() - make_interval(secs => ($6 - n) * 3000)
         FROM generate_series(1, $6::int) AS n`,
      [orgId, ch, caller, members.slice(0, 40), WORDS, perChannel],
    );
    if ((i + 1) % 20 === 0) process.stderr.write(`[bench] 13. messaging: ${(i + 1) * perChannel} messages inserted\n`);
  }
  await db.query('ANALYZE channels; ANALYZE channel_members; ANALYZE messages');
  return { channels: ids, allHands, messages: channels * perChannel, seedMs: performance.now() - started };
}
