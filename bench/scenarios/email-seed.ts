import { one, type Db } from '../../db/types.js';
import { createMailbox } from '../../domain/email/mailboxes.js';

/*
 * A shared mailbox with years of mail, inserted in bulk as receiving and sending write it: threads with their
 * thread-folder rows (four in five in the Inbox, the rest archived; a thread with a reply also in Sent), and
 * `messages / threads` messages per thread, every third one a reply the mailbox sent. Subjects and bodies are drawn
 * in SQL from a ranked vocabulary (filler, a business's mail terms, a long tail), Zipf-like as real text is; the
 * database generates the search columns itself, as it does for every stored message. The mailbox itself is made by
 * createMailbox (members, system folders, its event), as the operator's CLI makes it.
 */

const FILLER = 'the a to for on with we I it is can should after before again please thanks today tomorrow attached below regards'.split(' ');
const DOMAIN = (
  'invoice overdue payment refund pricing quote contract renewal order shipment delivery tracking customer account ' +
  'meeting schedule agenda proposal quarterly report budget approval signed deadline onboarding support ticket ' +
  'escalation complaint warranty return supplier purchase discount subscription cancel upgrade'
).split(' ');
const SYLLABLES = 'ka lo mi ren to sa vek ul bra dor fin gal hu jex kor lin mas nor pel qui ros sul tam vin wex yor zan el ost ard'.split(' ');
const TAIL = Array.from(
  { length: 3000 },
  (_, i) => SYLLABLES[i % 30] + SYLLABLES[Math.floor(i / 30) % 30] + (i >= 900 ? SYLLABLES[Math.floor(i / 900) % 30] : ''),
);
/** Ranked by frequency: a word's index is drawn as n * u^2.5 (u uniform), so the first are common and the tail rare. */
const WORDS = [...FILLER, ...DOMAIN, ...TAIL];
/** Outside senders: 2,000 people at 200 companies. */
const SENDERS = 2_000;
const COMPANIES = 200;

export interface EmailSeed {
  mailboxId: string;
  address: string;
  folders: { inbox: string; archive: string; sent: string };
  threadIds: string[];
  threads: number;
  messages: number;
  seedMs: number;
}

/** Threads per INSERT: each statement's transaction keeps the GIN pending list small and lets progress show. */
const CHUNK = 5_000;

const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

/** One mailbox (the caller a member with `role`, `owner` a human owner) holding `threads` threads and `messages` messages. */
export async function seedEmail(
  db: Db,
  orgId: string,
  p: { address: string; seats: { principalId: string; role: 'owner' | 'agent' }[]; threads: number; messages: number },
): Promise<EmailSeed> {
  const started = performance.now();
  const box = await db.tx((tx) => createMailbox(tx, orgId, { address: p.address, displayName: 'Bench support', members: p.seats }));
  const folderOf = async (role: string) =>
    one(
      await db.query<{ folder_id: string }>('SELECT folder_id FROM email_folders WHERE org_id = $1 AND mailbox_id = $2 AND role = $3', [
        orgId,
        box.mailboxId,
        role,
      ]),
    ).folder_id;
  const folders = { inbox: await folderOf('inbox'), archive: await folderOf('archive'), sent: await folderOf('sent') };
  const per = Math.max(1, Math.floor(p.messages / p.threads));
  const sender = `'person' || (n % ${SENDERS}) || '@company' || (n % ${COMPANIES}) || '.example'`;
  const draw = `($3::text[])[1 + floor(power(random(), 2.5) * cardinality($3::text[]))::int]`;
  for (let from = 1; from <= p.threads; from += CHUNK) {
    const to = Math.min(p.threads, from + CHUNK - 1);
    // Thread n's newest message is (threads - n) * 10 minutes ago, its messages an hour apart before that; message k
    // is a reply the mailbox sent (in Sent) every third, otherwise received. Threads and their messages go in one
    // statement from one materialised list (a join back to the fresh threads, unanalysed, is planned as a scan).
    await db.query(
      `WITH src AS MATERIALIZED (
         SELECT n, 'thr_' || md5($2 || n::text) AS thread_id, subj.s AS subject, now() - make_interval(mins => ($13::int - n) * 10) AS last_at
           FROM generate_series($6::int, $7::int) AS n,
                LATERAL (SELECT string_agg(${draw}, ' ') AS s FROM generate_series(1, 3 + (n % 6)) WHERE n > 0) AS subj),
       threads AS (
         INSERT INTO email_threads (org_id, thread_id, mailbox_id, subject, subject_key, participants, message_count, last_message_at, created_at)
         SELECT $1, thread_id, $2, subject, lower(subject), ARRAY[${sender}, $8::text], $4::int, last_at, last_at - make_interval(mins => $4::int * 60)
           FROM src)
       INSERT INTO email_messages (org_id, message_id, mailbox_id, thread_id, folder_id, state, rfc_message_id, in_reply_to, from_address, from_name,
                                   from_domain, to_addresses, subject, text, author_id, size_bytes, sent_at, received_at, sort_at, created_at, updated_at)
       SELECT $1, 'eml_' || md5($2 || n::text || '-' || k::text), $2, t.thread_id, CASE WHEN mine THEN $11 WHEN n % 5 = 0 THEN $10 ELSE $9 END,
              CASE WHEN mine THEN 'sent' ELSE 'received' END, md5($2 || n::text || '-' || k::text) || '@mail.example',
              CASE WHEN k > 1 THEN md5($2 || n::text || '-' || (k - 1)::text) || '@mail.example' END,
              CASE WHEN mine THEN $8 ELSE ${sender} END, CASE WHEN mine THEN 'Support' ELSE 'Person ' || (n % ${SENDERS}) END,
              CASE WHEN mine THEN $5 ELSE 'company' || (n % ${COMPANIES}) || '.example' END,
              jsonb_build_array(jsonb_build_object('address', CASE WHEN mine THEN ${sender} ELSE $8 END, 'name', '')),
              CASE WHEN k > 1 THEN 'Re: ' ELSE '' END || t.subject, body.text, CASE WHEN mine THEN $12 END, 600 + length(body.text),
              CASE WHEN mine THEN at END, CASE WHEN NOT mine THEN at END, at, at, at
         FROM src t
        CROSS JOIN generate_series(1, $4::int) AS k
        CROSS JOIN LATERAL (SELECT k % 3 = 0 AS mine, t.last_at - make_interval(mins => ($4::int - k) * 60) AS at) AS x
        CROSS JOIN LATERAL (SELECT string_agg(${draw}, ' ') AS text FROM generate_series(1, 20 + ((t.n + k) % 60)) WHERE k > 0) AS body`,
      [
        orgId,
        box.mailboxId,
        WORDS,
        per,
        p.address.split('@')[1],
        from,
        to,
        p.address,
        folders.inbox,
        folders.archive,
        folders.sent,
        p.seats[0].principalId,
        p.threads,
      ],
    );
    // What autovacuum would do (it may be off, as on the bench machines): without statistics the foreign-key checks
    // of the next chunk plan a walk of every thread of the mailbox per message (email_threads_subject, filtered by
    // thread_id): chunk 13 of 20 took over 10 minutes, the others 40 s.
    await db.query('ANALYZE email_threads');
    log(`15. email: ${to} threads, ${to * per} messages inserted`);
  }
  await db.query(
    `INSERT INTO email_thread_folders (org_id, mailbox_id, folder_id, thread_id, last_message_at, message_count)
     SELECT org_id, mailbox_id, folder_id, thread_id, max(sort_at), count(*) FROM email_messages WHERE org_id = $1 AND mailbox_id = $2
      GROUP BY org_id, mailbox_id, folder_id, thread_id`,
    [orgId, box.mailboxId],
  );
  // VACUUM as well, as autovacuum would after a load (it is off on the bench machines): it also merges the GIN
  // indexes' pending lists, which every search otherwise reads whole.
  log('15. email: thread folders inserted; VACUUM ANALYZE');
  for (const table of ['email_threads', 'email_thread_folders', 'email_messages', 'email_mailbox_members']) await db.query(`VACUUM ANALYZE ${table}`);
  const sample = await db.query<{ thread_id: string }>(
    'SELECT thread_id FROM email_threads WHERE org_id = $1 AND mailbox_id = $2 ORDER BY random() LIMIT 1000',
    [orgId, box.mailboxId],
  );
  return {
    mailboxId: box.mailboxId,
    address: box.address,
    folders,
    threadIds: sample.map((r) => r.thread_id),
    threads: p.threads,
    messages: p.threads * per,
    seedMs: performance.now() - started,
  };
}
