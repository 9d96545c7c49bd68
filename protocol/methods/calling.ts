import { z } from 'zod';
import { replayedField } from '../dedupe.js';
import { method } from '../contract.js';
import { id, limit, proofFields, text } from '../schema.js';
import { Message, channelId, changed, principalId } from './messaging/shapes.js';

/**
 * Calls (docs/families/messaging.md): a huddle in a channel. The host starts it (a root message of kind call is
 * posted; its thread is the in-call chat), channel members and invitees join, the host mutes (never unmutes others),
 * locks, removes, records and ends. Media is LiveKit's when configured (a join token per participant), else none: the
 * call is then control plane and record only. Events carry ids, counts and statuses, never titles, emoji or text.
 */

export const PARTICIPANT_STATES = ['invited', 'joined', 'left', 'removed'] as const;
export const RECORDING_STATUSES = ['starting', 'active', 'stopped', 'ready', 'failed'] as const;
/** Transcript times: milliseconds from the call's start, up to 7 days. */
export const MAX_TRANSCRIPT_MS = 7 * 24 * 60 * 60 * 1000;

export const callId = (description: string) => id('call', description);
const call = callId('The call.');

/** `:shortcode:` or exactly one emoji (one grapheme that is a pictograph, a flag or a keycap). */
export function isEmoji(s: string): boolean {
  if (/^:[a-z0-9_+-]{1,64}:$/.test(s)) return true;
  if (s.length > 64) return false;
  const graphemes = [...new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(s)];
  return graphemes.length === 1 && /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u.test(s);
}

export const Emoji = z
  .string()
  .max(66, 'must be at most 66 characters')
  .refine(isEmoji, 'must be a :shortcode: (a-z, 0-9, _ + -) or exactly one emoji')
  .describe('`:shortcode:` or one emoji.');

export const Participant = z.strictObject({
  principalId: z.string(),
  role: z.enum(['host', 'attendee']),
  state: z.enum(PARTICIPANT_STATES).describe('invited: may join (even a locked call); joined: in the call; left or removed: out of it.'),
  canPublish: z.boolean().describe('false for a channel observer: joins to listen and watch only.'),
  muted: z.boolean(),
  handRaisedAt: z.string().nullable(),
  handPosition: z.number().int().nullable().describe('1-based place among raised hands, first come first served.'),
  lastReaction: z.strictObject({ emoji: z.string(), at: z.string() }).nullable(),
  invitedBy: z.string().nullable(),
  invitedAt: z.string().nullable(),
  joinedAt: z.string().nullable().describe('The first time it joined.'),
  leftAt: z.string().nullable(),
});

export const Recording = z.strictObject({
  id: z.string().describe('rcd_…'),
  status: z
    .enum(RECORDING_STATUSES)
    .describe("starting (asked of LiveKit) -> active -> stopped -> ready or failed (LiveKit's webhook); record only: active -> stopped."),
  startedBy: z.string(),
  approvalId: z.string().nullable().describe("The approval an agent's recording waited for."),
  startedAt: z.string(),
  stoppedAt: z.string().nullable(),
  readyAt: z.string().nullable(),
  fileId: z.string().nullable().describe("The recording's file, once ready."),
  sizeBytes: z.number().int().nullable(),
  durationMs: z.number().int().nullable(),
  failure: z.string().nullable().describe('Why it failed, as LiveKit said.'),
});

export const Call = z.strictObject({
  id: z.string().describe('call_…'),
  channelId: z.string(),
  rootMessageId: z.string().describe('Its root message: the thread is the in-call chat; at the end it reads as a summary.'),
  title: z.string().nullable(),
  status: z.enum(['live', 'ended']),
  locked: z.boolean().describe('Only invitees may join a locked call.'),
  hostId: z.string(),
  startedBy: z.string(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  durationMs: z.number().int().describe('From start to end, or to now while live.'),
  joinedCount: z.number().int().describe('Participants in the call now.'),
  participants: z.array(Participant).describe('Everyone invited or ever joined, the host first, then by when they came.'),
  raisedHands: z.array(z.string()).describe('Principals with a raised hand, first come first served.'),
  recording: Recording.nullable().describe('The latest recording.'),
  transcriptLineCount: z.number().int(),
});

export const Media = z
  .strictObject({
    url: z.string().describe('The LiveKit server to connect to.'),
    token: z.string().describe('A join token for this room, identity = your principal id (a bearer credential: keep it private).'),
    room: z.string().describe('The room: the call id.'),
    canPublish: z.boolean(),
    expiresAt: z.string(),
  })
  .nullable()
  .describe('null when the server has no LiveKit: the call is then control plane and record only.');

export const TranscriptLine = z.strictObject({
  id: z.string().describe('tl_…'),
  lineSeq: z.number().int().describe('The order lines were added in.'),
  speaker: z.string().nullable().describe('The member speaking.'),
  speakerLabel: z.string().nullable().describe('Anyone else speaking, as labelled.'),
  text: z.string(),
  startMs: z.number().int(),
  endMs: z.number().int(),
  addedBy: z.string(),
  addedAt: z.string(),
});

const withCall = z.strictObject({ call: Call, changed });
const joinResult = z.strictObject({ call: Call, media: Media, changed });
const who = principalId('A member of the org (usr_… or agt_…).');

export const calling = {
  start: method({
    summary:
      'Start a call in a channel you may write: you host and join, a root message (kind call) is posted, its thread is the in-call chat. A live call in the channel is CONFLICT naming it. media: a LiveKit join token, or null without LiveKit.',
    params: z.strictObject({
      channelId: channelId('The channel to call in.'),
      title: text({ min: 1, max: 200, description: 'What the call is about; the root message shows it.' }).optional(),
    }),
    result: joinResult,
    events: ['calling.call.start'],
    example: { channelId: 'ch_0123456789abcdef', title: 'Incident sync' },
  }),
  join: method({
    summary:
      'Join a live call: channel members and invitees. A locked call, or one you were removed from, is CONFLICT unless you are invited. Joined already: changed:false with a fresh token.',
    params: z.strictObject({ callId: call }),
    result: joinResult,
    events: ['calling.participant.join'],
    example: { callId: 'call_0123456789abcdef' },
  }),
  invite: method({
    summary:
      'Invite members to a live call (it rings on their stream); an invitee may join even a locked call, or after a removal. While locked, only the host invites. All invited or in it already: changed:false.',
    params: z.strictObject({
      callId: call,
      principalIds: z.array(who).min(1, 'must name at least one member').max(50, 'must name at most 50 members').describe('Members to invite, 1 to 50.'),
    }),
    result: withCall,
    events: ['calling.participant.invite'],
    example: { callId: 'call_0123456789abcdef', principalIds: ['usr_0123456789abcdef'] },
  }),
  removeParticipant: method({
    summary:
      'Leave a call (yourself, the default) or remove someone (the host only). A host leaving passes the host to whoever joined first; the last one out ends the call. Out already: changed:false.',
    params: z.strictObject({ callId: call, principalId: who.optional().describe('Who leaves (default: you).') }),
    result: withCall,
    events: ['calling.participant.remove'],
    example: { callId: 'call_0123456789abcdef', principalId: 'usr_0123456789abcdef' },
  }),
  setMute: method({
    summary:
      'Mute or unmute yourself, or (host only) mute someone or everyone else (`all`). Nobody unmutes anyone else: that is CONFLICT (no remote unmute). Already so: changed:false.',
    params: z.strictObject({
      callId: call,
      principalId: z
        .union([who, z.literal('all')])
        .optional()
        .describe('Whom: a participant, `all` (everyone else in the call), or you (the default).'),
      muted: z.boolean().describe('true mutes; false unmutes (yourself only).'),
    }),
    result: withCall,
    events: ['calling.participant.set_mute'],
    example: { callId: 'call_0123456789abcdef', principalId: 'all', muted: true },
  }),
  setLock: method({
    summary: 'Lock or unlock a live call (host only): while locked only invitees join. Already so: changed:false.',
    params: z.strictObject({ callId: call, locked: z.boolean().describe('true: only invitees may join.') }),
    result: withCall,
    events: ['calling.call.set_lock'],
    example: { callId: 'call_0123456789abcdef', locked: true },
  }),
  raiseHand: method({
    summary: 'Raise your hand in a call you are in; hands are answered first come, first served. Raised already: changed:false.',
    params: z.strictObject({ callId: call }),
    result: withCall,
    events: ['calling.hand.raise'],
    example: { callId: 'call_0123456789abcdef' },
  }),
  lowerHand: method({
    summary: "Lower your hand, or (host only) someone else's. Not raised: changed:false.",
    params: z.strictObject({ callId: call, principalId: who.optional().describe('Whose hand (default: yours).') }),
    result: withCall,
    events: ['calling.hand.lower'],
    example: { callId: 'call_0123456789abcdef' },
  }),
  react: method({
    summary: 'Send a reaction to everyone in the call (shown as your last reaction). More than 5 a second is RATE_LIMITED.',
    params: z.strictObject({ callId: call, emoji: Emoji }),
    result: withCall,
    events: ['calling.reaction.send'],
    example: { callId: 'call_0123456789abcdef', emoji: ':tada:' },
  }),
  chat: method({
    summary:
      "Say something in the call's chat: a reply in the thread of its root message. The same idempotencyId again returns the first message (changed:false); with other text it is CONFLICT.",
    params: z.strictObject({
      callId: call,
      text: text({ min: 1, max: 16_000, description: 'The message, up to 16,000 characters.' }),
      idempotencyId: text({ min: 1, max: 128, description: 'Your id for this message (1-128 characters): a retry with it posts nothing new.' }).optional(),
    }),
    result: z.strictObject({ message: Message, changed, replayed: replayedField('idempotencyId') }),
    dedupeBy: 'idempotencyId',
    events: ['calling.chat.send'],
    example: { callId: 'call_0123456789abcdef', text: 'Sharing the runbook now.', idempotencyId: 'chat-1' },
  }),
  recordingStart: method({
    hold: { completion: 'retry', when: 'an agent starts it while a human is in the call' },
    summary:
      "Start recording a live call (host only): LiveKit's egress when configured, else a record of it. Recording already: changed:false. An agent recording while a human is in the call holds for a human's approval (calling.recording_start).",
    params: z.strictObject({ callId: call, ...proofFields }),
    result: withCall,
    events: ['calling.recording.start'],
    example: { callId: 'call_0123456789abcdef' },
  }),
  recordingStop: method({
    summary: "Stop the call's recording (host only); LiveKit's webhook later marks it ready with its file, or failed. Not recording: changed:false.",
    params: z.strictObject({ callId: call }),
    result: withCall,
    events: ['calling.recording.stop'],
    example: { callId: 'call_0123456789abcdef' },
  }),
  addTranscriptLine: method({
    summary:
      "Add a transcript line to a call you joined, while live and up to 24 hours after its end: a member speaker or a speakerLabel, text, startMs <= endMs (ms from the call's start). The same speaker and startMs again: changed:false.",
    params: z.strictObject({
      callId: call,
      speaker: principalId('The member speaking (or give speakerLabel).').optional(),
      speakerLabel: text({ min: 1, max: 100, description: 'Who speaks, when not a member: a guest\'s name, "Speaker 2".' }).optional(),
      text: text({ min: 1, max: 4_000, description: 'What was said, up to 4,000 characters.' }),
      startMs: z
        .number()
        .int('must be an integer')
        .min(0, 'must be >= 0')
        .max(MAX_TRANSCRIPT_MS, `must be at most ${MAX_TRANSCRIPT_MS} (7 days)`)
        .describe("When the line starts, in ms from the call's start."),
      endMs: z
        .number()
        .int('must be an integer')
        .min(0, 'must be >= 0')
        .max(MAX_TRANSCRIPT_MS, `must be at most ${MAX_TRANSCRIPT_MS} (7 days)`)
        .describe('When it ends (>= startMs).'),
    }),
    result: z.strictObject({ line: TranscriptLine, changed, replayed: replayedField('startMs') }),
    dedupeBy: 'startMs',
    events: ['calling.transcript.add_line'],
    example: { callId: 'call_0123456789abcdef', speaker: 'usr_0123456789abcdef', text: 'Let us start with the timeline.', startMs: 1200, endMs: 4800 },
  }),
  end: method({
    summary:
      'End the call (host only): everyone leaves, a recording stops, the LiveKit room is closed, and the root message becomes a summary (duration, participant count). Ended already: changed:false.',
    params: z.strictObject({ callId: call }),
    result: withCall,
    events: ['calling.call.end'],
    example: { callId: 'call_0123456789abcdef' },
  }),
  getDetails: method({
    summary:
      'A call with its participants and their states (muted, hands, reactions), lock and latest recording. Yours to see if you can see its channel or are invited.',
    params: z.strictObject({ callId: call }),
    result: z.strictObject({ call: Call }),
    example: { callId: 'call_0123456789abcdef' },
  }),
  getTranscript: method({
    summary:
      "A call's transcript by start time, a page at a time: as JSON lines, or as a WebVTT document (voice tags <v Speaker>) of that page. Yours to see if you can see its channel or are invited.",
    params: z.strictObject({
      callId: call,
      format: z.enum(['json', 'webvtt']).default('json').describe("json: lines; webvtt: one WebVTT document of the page's cues."),
      cursor: z.string().max(200, 'must be at most 200 characters').describe('The nextCursor of the previous page.').optional(),
      limit: limit(1000, 200),
    }),
    result: z.strictObject({
      callId: z.string(),
      format: z.enum(['json', 'webvtt']),
      lines: z.array(TranscriptLine).nullable().describe("The page's lines (format json; null otherwise)."),
      webvtt: z.string().nullable().describe('The page as a WebVTT document (format webvtt; null otherwise).'),
      nextCursor: z.string().nullable(),
    }),
    example: { callId: 'call_0123456789abcdef', format: 'webvtt', limit: 200 },
  }),
};
