/**
 * Bodies kept in the AI audit (only when the org turns it on) are redacted first: e-mail addresses, runs of
 * six or more digits (bank account numbers, BSBs, TFNs, phone numbers, card numbers; spaces and hyphens
 * between the digits do not hide them) and long secrets (API keys) are replaced by a marker. Money
 * (`$1,234.56`), dates and record ids stay, so a reviewer can still follow what was asked and answered.
 */
const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;
const SECRET = /\b(?:wops|sk)[_-][A-Za-z0-9_-]{16,}\b/g;
const DIGIT_RUN = /(?<![\w$.,/-])\d(?:[ -]?\d){5,}(?![\d.,/-]?\d)/g;

export function redactText(text: string): string {
  return text
    .replace(SECRET, '[secret]')
    .replace(EMAIL, '[email]')
    .replace(DIGIT_RUN, (run) => (/\d{4}-\d{2}-\d{2}/.test(run) ? run : '[number]'));
}
