import { z } from 'zod';
import { method } from '../contract.js';
import { id, proofFields, text } from '../schema.js';
import { ifVersion, memberId } from './member.js';

/** Profiles: what a member tells the org about themselves, beside the member record (docs/families/people.md). */

export const MAX_LINKS = 10;
export const MAX_EXPERTISE = 30;
export const MAX_SECTIONS = 20;
export const MAX_SECTION_BODY = 20_000;
export const MAX_AVATAR_BYTES = 5 * 1024 * 1024;
/** The square WebP sizes every avatar is stored in, in pixels. */
export const AVATAR_SIZES = [32, 96, 256] as const;
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

export const sectionId = (description: string) => id('psec', description);

const httpsUrl = z
  .string()
  .max(2048, 'must be at most 2048 characters')
  .refine((u) => {
    try {
      const url = new URL(u);
      return url.protocol === 'https:' && url.hostname.length > 0 && !url.username && !url.password;
    } catch {
      return false;
    }
  }, 'must be an https:// URL without credentials')
  .describe('An https URL.');

const Link = z.strictObject({
  label: text({ min: 1, max: 60, description: 'What the link is, e.g. "GitHub".' }),
  url: httpsUrl,
});

const Clock = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'must be a time HH:MM (00:00 to 24:00)');
const Range = z
  .strictObject({ start: Clock.describe('Start, HH:MM.'), end: Clock.describe('End, HH:MM (after start; 24:00 is midnight).') })
  .refine((r) => r.start < r.end, 'end must be after start');
const DayRanges = z.array(Range).max(4, 'must be at most 4 ranges a day').describe('Ranges of that day, in order, not overlapping.');
const WorkingHours = z
  .strictObject(Object.fromEntries(WEEKDAYS.map((d) => [d, DayRanges.optional()])) as Record<(typeof WEEKDAYS)[number], z.ZodOptional<typeof DayRanges>>)
  .describe('Working hours per weekday (mon..sun), in the member’s own time zone; a day left out is not worked.');

export const profileFields = {
  headline: text({ max: 120, description: 'One line under the name, e.g. "Month-end close, AP".' }),
  bio: text({ max: 4000, description: 'A few paragraphs about the member (plain text or markdown).' }),
  pronouns: text({ max: 40, description: 'e.g. "she/her".' }),
  phone: z.string().max(40, 'must be at most 40 characters').describe('Phone number in international form (+49 30 1234567); stored as E.164.'),
  links: z.array(Link).max(MAX_LINKS, `must be at most ${MAX_LINKS} links`).describe(`Up to ${MAX_LINKS} labelled https links.`),
  expertise: z
    .array(text({ min: 1, max: 50, description: 'A tag, e.g. "revenue recognition".' }))
    .max(MAX_EXPERTISE, `must be at most ${MAX_EXPERTISE} tags`)
    .describe(`Up to ${MAX_EXPERTISE} expertise tags (duplicates ignored, case-insensitively).`),
  workingHours: WorkingHours,
};

const AvatarSize = z.strictObject({
  size: z.number().int().describe('Width and height in pixels.'),
  sha256: z.string(),
  url: z.string().describe('Signed download path (no key needed) until expiresAt.'),
});
export const Avatar = z.strictObject({ sizes: z.array(AvatarSize), expiresAt: z.string() }).nullable();

export const Section = z.strictObject({
  id: z.string().describe('psec_…'),
  memberId: z.string(),
  title: z.string(),
  body: z.string(),
  position: z.number().int(),
  status: z.enum(['live', 'deleted']),
  version: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const Profile = z.strictObject({
  memberId: z.string(),
  headline: z.string().nullable(),
  bio: z.string().nullable(),
  pronouns: z.string().nullable(),
  phone: z.string().nullable().describe('E.164.'),
  links: z.array(z.strictObject({ label: z.string(), url: z.string() })),
  expertise: z.array(z.string()),
  workingHours: z
    .strictObject({
      timezone: z.string().nullable().describe('The member’s time zone (member.timezone).'),
      days: z.record(z.string(), z.array(z.strictObject({ start: z.string(), end: z.string() }))),
    })
    .nullable(),
  avatar: Avatar,
  sections: z.array(Section).describe('Live sections in position order.'),
  version: z.number().int().describe('1 until the first change.'),
  updatedAt: z.string().nullable(),
});

const changed = z.boolean().describe('false when the call found the profile already so (its event says noop).');
const who = memberId('The member whose profile this is: yourself, an agent, or (with the admin scope) another human.');

export const profile = {
  get: method({
    summary: 'A member’s profile: headline, bio, pronouns, phone, links, expertise, working hours, avatar (signed URLs) and sections.',
    params: z.strictObject({ memberId: memberId('The member.') }),
    result: z.strictObject({ profile: Profile }),
    example: { memberId: 'usr_0123456789abcdef' },
  }),
  update: method({
    hold: { completion: 'release', when: "an agent changes a human's profile" },
    summary:
      'Change profile fields (null clears one). Your own profile or an agent’s; another human’s needs the admin scope. A phone is checked and stored as E.164; links must be https.',
    params: z.strictObject({
      memberId: who,
      headline: profileFields.headline.nullable().optional(),
      bio: profileFields.bio.nullable().optional(),
      pronouns: profileFields.pronouns.nullable().optional(),
      phone: profileFields.phone.nullable().optional(),
      links: profileFields.links.optional(),
      expertise: profileFields.expertise.optional(),
      workingHours: profileFields.workingHours.nullable().optional(),
      ifVersion,
    }),
    result: z.strictObject({ profile: Profile, changed }),
    events: ['profile.fields.update'],
    example: { memberId: 'usr_0123456789abcdef', headline: 'Month-end close', phone: '+49 30 901820', expertise: ['accounts payable'] },
  }),
  updateAvatar: method({
    hold: { completion: 'retry', when: "an agent changes a human's profile" },
    summary:
      'Set the avatar from a PNG, JPEG or WebP of at most 5 MB that you uploaded (PUT /api/v1/blobs): stored as square WebP images of 32, 96 and 256 pixels with all metadata (EXIF, GPS) removed. null removes the avatar.',
    params: z.strictObject({
      memberId: who,
      blob: z
        .string()
        .regex(/^[0-9a-f]{64}$/, 'must be the SHA-256 of an uploaded blob (64 lowercase hex digits)')
        .nullable()
        .describe('The SHA-256 PUT /api/v1/blobs answered for the image; null removes the avatar.'),
      ifVersion,
      ...proofFields,
    }),
    result: z.strictObject({ profile: Profile, changed }),
    events: ['profile.avatar.update'],
    example: { memberId: 'usr_0123456789abcdef', blob: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' },
  }),
  addSection: method({
    hold: { completion: 'release', when: "an agent changes a human's profile" },
    summary: `Add a section (title and markdown body) to a profile, at position (default last). A profile holds at most ${MAX_SECTIONS} sections.`,
    params: z.strictObject({
      memberId: who,
      title: text({ min: 1, max: 120, description: 'Section title, e.g. "How I work".' }),
      body: text({ max: MAX_SECTION_BODY, description: 'Markdown text.' }),
      position: z.number().int().min(0).max(MAX_SECTIONS).describe('0-based slot among the live sections (default: last).').optional(),
    }),
    result: z.strictObject({ section: Section, changed }),
    events: ['profile.section.add'],
    example: { memberId: 'usr_0123456789abcdef', title: 'How I work', body: 'Mornings are for deep work.' },
  }),
  updateSection: method({
    hold: { completion: 'release', when: "an agent changes a human's profile" },
    summary: 'Change a section’s title, body or position.',
    params: z.strictObject({
      sectionId: sectionId('The section.'),
      title: text({ min: 1, max: 120, description: 'Section title.' }).optional(),
      body: text({ max: MAX_SECTION_BODY, description: 'Markdown text.' }).optional(),
      position: z.number().int().min(0).max(MAX_SECTIONS).describe('0-based slot among the live sections.').optional(),
      ifVersion,
    }),
    result: z.strictObject({ section: Section, changed }),
    events: ['profile.section.update'],
    example: { sectionId: 'psec_0123456789abcdef', body: 'Afternoons too.' },
  }),
  deleteSection: method({
    hold: { completion: 'release', when: "an agent changes a human's profile" },
    summary: 'Delete a section (it stays as a tombstone; deleting it again changes nothing).',
    params: z.strictObject({ sectionId: sectionId('The section.'), ifVersion }),
    result: z.strictObject({ section: Section, changed }),
    events: ['profile.section.delete'],
    example: { sectionId: 'psec_0123456789abcdef' },
  }),
};
