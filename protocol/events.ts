/*
 * Ledger event kinds. One grammar: `<family>.<noun>.<verb>`, as the spec's `books.bill.approve`: lowercase, the
 * words of a segment joined by `_` (books.bill.schedule_run), the verb the act in the present tense. The board
 * keeps the spec's own kinds, `item.<done>` and `workstream.<done>` (item.created): the one exception. A signature
 * act held for a human appends `<family>.signature.hold`.
 *
 * Kinds are permanent: an event keeps the kind it was appended with, or its chain would no longer verify. The kinds
 * renamed when the grammar was decided are listed below; GET /events?kind=, the stream and the server's own readers
 * take a renamed kind and its current name as one (matchKind, currentKind).
 */

export const SIGNATURE_HOLD = 'signature.hold';

const SEGMENT = '[a-z][a-z_]*';
const GRAMMAR = new RegExp(`^${SEGMENT}\\.${SEGMENT}\\.${SEGMENT}$`);
/** The board's kinds from the spec: `item.created`, `item.attachment.added`, `workstream.moved`. */
const BOARD_KIND = /^(item|workstream)(\.[a-z][a-z_]*){1,2}$/;
/** A verb in the past tense: what the grammar replaced (created, sent, ready). */
const PAST = /(ed|_set|sent|ready)$/;

/** Why `kind` does not follow the grammar for an event of `family`, or null when it does. */
export function kindProblem(family: string, kind: string): string | null {
  if (family === 'board' && BOARD_KIND.test(kind)) return null;
  if (!GRAMMAR.test(kind)) return `${kind} is not <family>.<noun>.<verb> (lowercase segments, words joined by _)`;
  if (!kind.startsWith(`${family}.`)) return `${kind} does not start with its family, ${family}`;
  const verb = kind.slice(kind.lastIndexOf('.') + 1);
  if (PAST.test(verb)) return `${kind}: the verb "${verb}" is not in the present tense`;
  return null;
}

export interface RenamedKind {
  /** The family whose events carried the old kind. */
  family: string;
  was: string;
  now: string;
}

const renames = (family: string, pairs: Record<string, string>): RenamedKind[] => Object.entries(pairs).map(([was, now]) => ({ family, was, now }));

/** Every kind renamed by the grammar (2026-11): events appended before keep the old kind. */
export const RENAMED_KINDS: readonly RenamedKind[] = [
  ...renames('approval', {
    'approval.requested': 'approval.request.create',
    'approval.approved': 'approval.request.approve',
    'approval.rejected': 'approval.request.reject',
  }),
  ...renames('pairing', {
    'pairing.requested': 'pairing.request.create',
    'pairing.approved': 'pairing.request.approve',
    'pairing.claimed': 'pairing.request.claim',
  }),
  ...renames('annotation', {
    'annotation.comment.added': 'annotation.comment.add',
    'annotation.thread.created': 'annotation.thread.create',
    'annotation.thread.dismissed': 'annotation.thread.dismiss',
    'annotation.thread.resolved': 'annotation.thread.resolve',
  }),
  ...renames('file', {
    'file.comment.added': 'file.comment.add',
    'file.pin.added': 'file.pin.add',
    'file.pin.removed': 'file.pin.remove',
  }),
  ...renames('files', {
    'files.comment.added': 'files.comment.add',
    'files.comment.resolved': 'files.comment.resolve',
    'files.doc.revised': 'files.doc.revise',
    'files.doc.suggested': 'files.doc.suggest',
    'files.doc_tab.changed': 'files.doc_tab.change',
    'files.export.created': 'files.export.create',
    'files.file.created': 'files.file.create',
    'files.file.duplicated': 'files.file.duplicate',
    'files.file.moved': 'files.file.move',
    'files.file.purged': 'files.file.purge',
    'files.file.recovered': 'files.file.recover',
    'files.file.renamed': 'files.file.rename',
    'files.file.trashed': 'files.file.trash',
    'files.share.granted': 'files.share.grant',
    'files.share.revoked': 'files.share.revoke',
    'files.share.downloaded': 'files.share.download',
    'files.suggestion.accepted': 'files.suggestion.accept',
    'files.suggestion.rejected': 'files.suggestion.reject',
    'files.upload.registered': 'files.upload.register',
  }),
  ...renames('channel', {
    'channel.channel.created': 'channel.channel.create',
    'channel.channel.updated': 'channel.channel.update',
    'channel.conversation.created': 'channel.conversation.create',
    'channel.dm.resolved': 'channel.dm.resolve',
    'channel.member.added': 'channel.member.add',
    'channel.member.removed': 'channel.member.remove',
    'channel.member.role_changed': 'channel.member.change_role',
    'channel.read.marked': 'channel.read.mark',
    'channel.read.unmarked': 'channel.read.unmark',
  }),
  ...renames('messaging', {
    'messaging.bookmark.added': 'messaging.bookmark.add',
    'messaging.bookmark.removed': 'messaging.bookmark.remove',
    'messaging.message.sent': 'messaging.message.send',
    'messaging.message.edited': 'messaging.message.edit',
    'messaging.message.deleted': 'messaging.message.delete',
    'messaging.message.pinned': 'messaging.message.pin',
    'messaging.message.unpinned': 'messaging.message.unpin',
    'messaging.message.scheduled': 'messaging.message.schedule',
    'messaging.message.delivered': 'messaging.message.deliver',
    'messaging.message.failed': 'messaging.message.fail',
    'messaging.poll.created': 'messaging.poll.create',
    'messaging.poll.voted': 'messaging.poll.vote',
  }),
  ...renames('calling', {
    'calling.call.started': 'calling.call.start',
    'calling.call.ended': 'calling.call.end',
    'calling.call.lock_set': 'calling.call.set_lock',
    'calling.chat.sent': 'calling.chat.send',
    'calling.hand.raised': 'calling.hand.raise',
    'calling.hand.lowered': 'calling.hand.lower',
    'calling.participant.invited': 'calling.participant.invite',
    'calling.participant.joined': 'calling.participant.join',
    'calling.participant.mute_set': 'calling.participant.set_mute',
    'calling.participant.removed': 'calling.participant.remove',
    'calling.reaction.sent': 'calling.reaction.send',
    'calling.recording.started': 'calling.recording.start',
    'calling.recording.stopped': 'calling.recording.stop',
    'calling.recording.activated': 'calling.recording.activate',
    'calling.recording.ready': 'calling.recording.complete',
    'calling.recording.failed': 'calling.recording.fail',
    'calling.transcript.line_added': 'calling.transcript.add_line',
  }),
  ...renames('org', {
    'org.created': 'org.record.create',
    'org.deleted': 'org.record.delete',
    'org.key.minted': 'org.key.mint',
    'org.key.revoked': 'org.key.revoke',
    'org.ai.settings': 'org.ai_settings.update',
  }),
  // The settings family's key methods appended the org family's kinds.
  ...renames('settings', {
    'org.key.minted': 'settings.key.mint',
    'org.key.revoked': 'settings.key.revoke',
    'org.key.renamed': 'settings.key.rename',
  }),
  ...renames('books', {
    'books.invoice.payment': 'books.invoice.record_payment',
    'books.stp.response': 'books.stp.record_response',
    'books.settings.state': 'books.settings.set_state',
    'books.payg.schedule_loaded': 'books.payg.load_schedule',
  }),
  ...renames('directory', { 'directory.import.books': 'directory.books.import' }),
];

const NOW = new Map(RENAMED_KINDS.map((r) => [`${r.family} ${r.was}`, r.now]));

/** The current name of an event's kind: itself, or what it was renamed to. */
export function currentKind(family: string, kind: string): string {
  return NOW.get(`${family} ${kind}`) ?? kind;
}

/** What `?kind=` matches: these kinds in any family, and these (family, kind) pairs. */
export interface KindMatch {
  kinds: string[];
  pairs: { family: string; kind: string }[];
}

/** The stored kinds that read as `kind`, named by its current name or by a name it had. */
export function matchKind(kind: string): KindMatch {
  const current = new Set([kind, ...RENAMED_KINDS.filter((r) => r.was === kind).map((r) => r.now)]);
  const pairs = RENAMED_KINDS.filter((r) => current.has(r.now)).map((r) => ({ family: r.family, kind: r.was }));
  return { kinds: [...current], pairs };
}

/** Whether an event of `family` and `kind` is one that `?kind=` (matchKind) asks for. */
export function kindMatches(m: KindMatch, family: string, kind: string): boolean {
  return m.kinds.includes(kind) || m.pairs.some((p) => p.family === family && p.kind === kind);
}

/** Kinds appended outside a method call, by the server itself or a page outside the API, and what appends them. */
export const SYSTEM_EVENTS: Readonly<Record<string, string>> = {
  'org.record.create': 'the operator creates a top-level org (npm run cli -- org create, the demo)',
  'org.key.mint': 'the first admin key, minted with a new top-level org',
  'org.ai_settings.update': "the operator sets an org's AI settings (npm run cli -- ai-settings)",
  'invitation.invite.accept': 'an invitee accepts on the join page',
  'files.share.download': 'a guest downloads through a share link',
  'email.mailbox.create': 'the operator creates a shared mailbox (npm run cli -- mailbox-create)',
  'email.mailbox.set_members': "the operator changes a mailbox's members (npm run cli -- mailbox-members)",
  'email.mailbox.set_triage': "the operator turns a mailbox's background triage on (as an agent seat) or off (npm run cli -- mailbox-triage)",
  'email.message.receive':
    'mail arrives for mailboxes of the org (receiveMessage: the SMTP listener, IMAP sync; or a send delivering inside the org, in the email.deliver job)',
  'email.submission.deliver': "a send's undo window ends and it leaves (the email.deliver job): delivered, outboxed, deferred or failed",
  'email.submission.bounce': 'a delivery status report (DSN) arrives saying a sent message failed for a recipient: its submission is bounced',
  'email.submission.delay': 'a delivery status report (DSN) arrives saying a sent message is delayed for a recipient: its submission notes it',
  'calendar.itip.apply':
    "an iTIP REPLY, REQUEST or CANCEL arrives by mail (receiveMessage hands its text/calendar part to the calendar): an answer, an outsider's event or its cancellation",
  'email.review.expire': "an agent's held message nobody decided in time goes back to draft (the email.reviewExpire job)",
  'calling.recording.activate': "the media server's webhook: a recording started",
  'calling.recording.complete': "the media server's webhook: a recording is ready",
  'calling.recording.fail': "the media server's webhook: a recording failed",
  'books.feed.import': 'a bank statement imported (npm run cli -- import, or POST /api/v1/admin/books.importStatement)',
  'books.settings.set_state': "the operator sets the books' state (npm run cli -- books-settings)",
  'books.payg.load_schedule': 'the operator loads a PAYG withholding schedule (npm run cli -- payg-import)',
  'books.stp.record_response': "the tax office's answer to a payroll lodgement",
  'directory.books.import': "at startup, the books' contacts imported into the directory once",
};

/** Every kind a method's call may append: its contract's events, and its hold's when it is a signature act. */
export function methodEvents(family: string, c: { events?: readonly string[]; hold?: unknown }): string[] {
  return [...(c.events ?? []), ...(c.hold ? [`${family}.${SIGNATURE_HOLD}`] : [])];
}

/** The sentence OpenAPI and MCP's describe_method say about a method's events. */
export function eventsNote(family: string, c: { events?: readonly string[]; hold?: unknown }): string | undefined {
  const kinds = c.events ?? [];
  if (kinds.length === 0) return undefined;
  const list = kinds.map((k) => `\`${k}\``).join(kinds.length === 2 ? ' or ' : ', ');
  const held = c.hold ? `; a call held for a human appends \`${family}.${SIGNATURE_HOLD}\` instead` : '';
  return `Appends one ledger event: ${list}${held}.`;
}
