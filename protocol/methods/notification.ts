import { z } from 'zod';
import { method } from '../contract.js';
import { memberId } from './member.js';

/** Notification preferences: per event type instant, digest or off; a digest schedule; quiet hours. */

export const NOTIFICATION_TYPES = [
  'task.assigned',
  'mention',
  'approval.requested',
  'approval.decided',
  'hold.waiting',
  'member.joined',
  'reports.changed',
  'security',
] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];
export const MODES = ['instant', 'digest', 'off'] as const;
export type Mode = (typeof MODES)[number];

const TIME_ZONES = new Set(Intl.supportedValuesOf('timeZone').concat('UTC'));
const Clock = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time HH:MM (00:00 to 23:59)');

export const Digest = z.strictObject({
  frequency: z.enum(['daily', 'weekly']).describe('How often digested notifications are mailed.'),
  hour: z.number().int().min(0).max(23).describe('Hour of the day (in the quiet-hours time zone, else the member’s, else UTC).'),
  weekday: z.enum(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']).describe('For weekly: the day (default mon).').optional(),
});
export const QuietHours = z.strictObject({
  start: Clock.describe('From, HH:MM.'),
  end: Clock.describe('Until, HH:MM (before start means overnight).'),
  timezone: z
    .string()
    .max(64)
    .refine((tz) => TIME_ZONES.has(tz), 'must be an IANA time zone such as Europe/Berlin')
    .describe('IANA time zone.'),
});

const target = z.union([z.literal('org'), memberId('A member.')]).describe('A member id, or "org" for the org’s defaults (default: yourself).');

const Events = z.strictObject(
  Object.fromEntries(NOTIFICATION_TYPES.map((t) => [t, z.enum(MODES)])) as Record<
    NotificationType,
    z.ZodEnum<{ instant: 'instant'; digest: 'digest'; off: 'off' }>
  >,
);

export const Preferences = z.strictObject({
  events: Events.describe('The mode of every notification type.'),
  digest: Digest,
  quietHours: QuietHours.nullable(),
});

export const notification = {
  getPreferences: method({
    summary:
      'Effective notification preferences: built-in defaults, overlaid by the org’s defaults, overlaid by the member’s own. Your own, the org’s, or (with the admin scope) another member’s.',
    params: z.strictObject({ target: target.optional() }),
    result: z.strictObject({
      target: z.string(),
      preferences: Preferences.describe('What applies.'),
      own: z
        .strictObject({ events: z.record(z.string(), z.enum(MODES)), digest: Digest.nullable(), quietHours: QuietHours.nullable() })
        .describe('What this target set itself (the rest is inherited).'),
      version: z.number().int().describe('0 while nothing was set.'),
    }),
    example: { target: 'org' },
  }),
  updatePreferences: method({
    hold: { completion: 'release', when: "an agent changes a human's preferences or the org's defaults" },
    summary:
      'Set notification preferences: a mode per event type, the digest schedule, quiet hours (null inherits each again). Your own; the org’s defaults or another member’s need the admin scope. security can never be off.',
    params: z.strictObject({
      target: target.optional(),
      events: z
        .strictObject(
          Object.fromEntries(NOTIFICATION_TYPES.map((t) => [t, z.enum(MODES).nullable().optional()])) as Record<
            NotificationType,
            z.ZodOptional<z.ZodNullable<z.ZodEnum<{ instant: 'instant'; digest: 'digest'; off: 'off' }>>>
          >,
        )
        .describe(`Modes to set, by type: ${NOTIFICATION_TYPES.join(', ')}.`)
        .optional(),
      digest: Digest.nullable().describe('The digest schedule (null inherits).').optional(),
      quietHours: QuietHours.nullable()
        .describe('No instant mail between start and end (security notices excepted); null inherits again (the org’s, else none).')
        .optional(),
    }),
    result: z.strictObject({
      target: z.string(),
      preferences: Preferences,
      changed: z.boolean().describe('false when nothing changed (its event says noop).'),
    }),
    events: ['notification.preferences.update'],
    example: {
      events: { mention: 'instant', 'member.joined': 'digest' },
      digest: { frequency: 'daily', hour: 9 },
      quietHours: { start: '20:00', end: '07:00', timezone: 'Europe/Berlin' },
    },
  }),
};
