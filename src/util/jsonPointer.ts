/**
 * A JSON Pointer as people read a path: "/edits/0/oldText" -> "edits[0].oldText". `whole` names
 * the empty pointer (the value itself): "the value" in a sentence, "Value" at the start of a line.
 * Used by the host, the CLI and the webviews (no Node import here).
 */
export function describeJsonPointer(pointer: string, whole = 'the value'): string {
  if (pointer === '') return whole;
  let described = '';
  for (const encoded of pointer.slice(1).split('/')) {
    const segment = encoded.replace(/~1/g, '/').replace(/~0/g, '~');
    if (/^\d+$/.test(segment)) described += `[${segment}]`;
    else described += described ? `.${segment}` : segment;
  }
  return described;
}
