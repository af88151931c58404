import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { describeJsonPointer } from '../../src/util/jsonPointer';
import { describePath } from '../../src/host/validation';

describe('describeJsonPointer', () => {
  it('reads a pointer as a path with indexes in brackets', () => {
    assert.equal(describeJsonPointer('/edits/0/oldText'), 'edits[0].oldText');
    assert.equal(describeJsonPointer('/0/1'), '[0][1]');
    assert.equal(describeJsonPointer('/a'), 'a');
  });

  it('decodes ~1 and ~0 (in that order: "~01" is "~1", not "/")', () => {
    assert.equal(describeJsonPointer('/a~1b/c~0d'), 'a/b.c~d');
    assert.equal(describeJsonPointer('/~01'), '~1');
  });

  it('names the whole value as the caller asks', () => {
    assert.equal(describeJsonPointer(''), 'the value');
    assert.equal(describeJsonPointer('', 'Value'), 'Value');
    assert.equal(describePath(''), 'the value');
  });
});
