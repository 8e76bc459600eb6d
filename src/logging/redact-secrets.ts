/** What a secret is replaced with, wherever it is found. */
export const REDACTED = "[REDACTED]";

/**
 * Shorter values are not worth the name of secret, and redacting them would mangle ordinary
 * words: an unset MUSIC_API_KEY is "", which would otherwise match between every character.
 */
const MIN_SECRET_LENGTH = 4;

/** A text with every form of some secrets replaced by REDACTED. */
export type Redact = (text: string) => string;

/**
 * The one redaction of the program, shared by the logger (every line) and the HTTP client
 * (every answer about a failure, before it becomes an error): a text carries a secret in the
 * form whoever wrote it gave it, so each form is looked for.
 */
export function secretRedactor(secrets: readonly string[]): Redact {
  const forms = [
    ...new Set(secrets.filter((secret) => secret.length >= MIN_SECRET_LENGTH).flatMap(formsOf)),
  ]
    // The longest first, so that a form is never left half replaced by one it contains.
    .sort((a, b) => b.length - a.length);
  if (forms.length === 0) return (text) => text;
  const pattern = new RegExp(forms.map(escapeRegExp).join("|"), "g");
  return (text) => text.replace(pattern, REDACTED);
}

/**
 * A secret as a text may carry it: as is; JSON-escaped, as JavaScript writes it (quotes,
 * backslashes, control characters) and as PHP's json_encode does by default (also `\/` and
 * `\uXXXX` for every non-ASCII character); URL-encoded, in a path or query and in a form body.
 */
function formsOf(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const php = json
    .replace(/\//g, "\\/")
    .replace(
      /[\u0080-\uffff]/g,
      (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
  return [secret, json, php, ...urlForms(secret)];
}

function urlForms(secret: string): string[] {
  try {
    return [encodeURIComponent(secret), new URLSearchParams({ s: secret }).toString().slice(2)];
  } catch {
    // A lone surrogate has no URL encoding: no URL can carry it either.
    return [];
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
