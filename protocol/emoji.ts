import { badRequest } from './errors.js';

/*
 * A reaction's emoji, the same rule wherever people react (messages in channels, mail): a `:shortcode:` or exactly one
 * emoji. Unicode's recommended set (flags, keycaps, ZWJ families, skin tones) or a single pictograph.
 */

/** A `:shortcode:`: a-z, 0-9, _, + and -, up to 60 characters between the colons. */
export const SHORTCODE = /^:[a-z0-9_+-]{1,60}:$/;

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });
// Built at run time: the `v` flag (properties of strings) is beyond the compile target's regex syntax.
const RGI_EMOJI = new RegExp('^\\p{RGI_Emoji}$', 'v');
const PICTOGRAPH = /^\p{Extended_Pictographic}\uFE0F?$/u;

/** The emoji as given, or BAD_REQUEST naming params.emoji. */
export function checkEmoji(emoji: string): string {
  if (emoji.startsWith(':') || emoji.endsWith(':')) {
    if (SHORTCODE.test(emoji)) return emoji;
    throw badRequest('emoji', 'a shortcode is :name: with a-z, 0-9, _, + and - (up to 60 characters)');
  }
  let count = 0;
  for (const _ of graphemes.segment(emoji)) if (++count > 1) break;
  if (count === 1 && (RGI_EMOJI.test(emoji) || PICTOGRAPH.test(emoji))) return emoji;
  throw badRequest('emoji', 'must be a :shortcode: or exactly one emoji');
}
