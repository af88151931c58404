import { withoutInvisible } from '../util/serverText';

/**
 * C0 controls but tab and newline, DEL, and the C1 controls (U+0080–U+009F, which some terminals
 * read as CSI and OSC). Removing them disarms every escape sequence a server could put in tool
 * text, names, errors or logs: a window title, an OSC 52 clipboard write, a line erase. A single
 * character class, so linear on any text.
 */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const HAS_CONTROL = new RegExp(CONTROL.source);

/**
 * What the CLI writes to a terminal, a pipe or a file: never a raw control character, nor an
 * invisible one that reorders or disguises the text around it (bidirectional controls, zero-width
 * characters, the byte-order mark: src/util/serverText.ts).
 */
export function printable(text: string): string {
  return withoutInvisible(HAS_CONTROL.test(text) ? text.replace(CONTROL, '') : text);
}
