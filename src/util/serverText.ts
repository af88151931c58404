// Text a server sent, as an error or a log line shows it: a version, a name, a list of them. The
// server decides their length and characters; a message shows a bounded, escaped form.

/** Items at most that a message shows of a server's list (versions, capabilities). */
const SHOWN_ITEMS = 6;

/**
 * A version or a name a server sent: quoted, at most `max` characters, and anything but printable
 * ASCII escaped (no line breaks, terminal escapes or bidirectional controls reach a log).
 */
export function shownServerText(text: string, max = 40): string {
  const quoted = JSON.stringify(text.length > max ? text.slice(0, max) : text).replace(/[^\x20-\x7e]/g, escapedChar);
  return text.length > max ? `${quoted}…` : quoted;
}

/** A server's list of versions: the first few, each shown as shownServerText does. */
export function shownServerList(items: readonly string[]): string {
  return shownList(
    items.slice(0, SHOWN_ITEMS + 1).map((item) => shownServerText(item)),
    ', ',
    items.length,
  );
}

/** The first few of `items` (already shown), joined; `total`: how many there were in all. */
export function shownList(items: readonly string[], separator: string, total = items.length): string {
  const shown = items.slice(0, SHOWN_ITEMS).join(separator);
  return total > SHOWN_ITEMS ? `${shown}${separator}${total - SHOWN_ITEMS} more` : shown;
}

/**
 * Characters that show nothing yet change the text around them: the bidirectional marks,
 * embeddings, overrides and isolates (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069: a name
 * or a line that reads otherwise than it is), the zero-width space U+200B and the byte-order mark
 * U+FEFF (two names that look the same). Not the joiners U+200C/U+200D: emoji sequences, Persian
 * and Indic scripts need them. A character class's body.
 */
const INVISIBLE = '\\u061c\\u200b\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069\\ufeff';
const ALL_INVISIBLE = new RegExp(`[${INVISIBLE}]`, 'g');
const HAS_INVISIBLE = new RegExp(`[${INVISIBLE}]`);

/** `text` without the invisible formatting characters above (for what is shown as it is: the CLI's output, a list's line). */
export function withoutInvisible(text: string): string {
  return HAS_INVISIBLE.test(text) ? text.replace(ALL_INVISIBLE, '') : text;
}

/** Control characters and the invisible ones that could disguise a log line. */
const UNSHOWN = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${INVISIBLE}]`, 'g');

/** A server's message (an error's text) within a message of ours: one line, at most `max` characters, controls escaped. */
export function shownServerMessage(text: string, max = 300): string {
  const line = (text.length > max ? text.slice(0, max) : text).replace(/\s+/g, ' ').replace(UNSHOWN, escapedChar);
  return text.length > max ? `${line}…` : line;
}

/**
 * A part of a command line a registry wrote (an option, its value, a variable), to show before
 * it runs: controls and invisible characters escaped (what is shown is what runs), and a long one
 * as both its ends, since either may hold what matters (`--mount …,source=/`).
 */
export function shownBothEnds(text: string, max = 160): string {
  const cut = text.length > max ? `${text.slice(0, max - 61)}…${text.slice(-60)}` : text;
  return cut.replace(UNSHOWN, escapedChar);
}

/**
 * Text from a server or a registry, made safe for one line of a list or a terminal: no control
 * characters, no invisible ones (bidirectional controls, zero-width characters: withoutInvisible),
 * bounded.
 */
export function displayText(text: string | undefined, max = 200): string {
  if (!text) return '';
  let out = '';
  for (const ch of withoutInvisible(text.slice(0, max * 2))) {
    const code = ch.codePointAt(0)!;
    out += code < 0x20 || (code >= 0x7f && code < 0xa0) || code === 0x2028 || code === 0x2029 ? ' ' : ch;
  }
  out = out.replace(/ {2,}/g, ' ').trim();
  return out.length > max ? `${out.slice(0, max - 1)}…` : out;
}

/** A character as a JSON escape (`\\u202e`): what a message shows instead of it. */
export function escapedChar(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** A value a server sent where a string belongs: a string as shownServerText shows it, anything else as its JSON. */
export function shownServerValue(value: unknown, max = 40): string {
  return shownServerText(typeof value === 'string' ? value : String(JSON.stringify(value)), max);
}
