import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { displayConfigUrl, displayUrl } from '../../src/util/displayUrl';
import { displayUrl as transportDisplayUrl } from '../../src/transport/httpShared';
import { describeLaunch } from '../../src/host/transportFactory';

describe('displayUrl: origin, path and query names only', () => {
  test('query values hidden, names kept; user:password and fragment dropped', () => {
    assert.equal(displayUrl('https://user:pa55@example.com:8443/a/mcp?key=abc&sig=xyz#frag'), 'https://example.com:8443/a/mcp?key=…&sig=…');
    assert.equal(displayUrl(new URL('http://127.0.0.1:3000/mcp')), 'http://127.0.0.1:3000/mcp');
    assert.equal(displayUrl('https://example.com/mcp?'), 'https://example.com/mcp');
    assert.equal(displayUrl('https://example.com/?sk-live-123&x='), 'https://example.com/?…&x=…', 'a bare query word may be the key itself');
    assert.equal(displayUrl('https://example.com'), 'https://example.com/');
  });

  test('text that is no URL is still cut the same way', () => {
    assert.equal(displayUrl('example.com/mcp?token=abc'), 'example.com/mcp?token=…');
    assert.equal(displayUrl('://u:p@host/x?a=1'), '://host/x?a=…');
  });

  test('the transports use the same helper', () => {
    assert.equal(transportDisplayUrl(new URL('https://u:p@example.com/mcp?key=1')), 'https://example.com/mcp?key=…');
  });
});

describe('displayConfigUrl: the url as written in a config', () => {
  test('${env:} and ${input:} references stay as written, in the path and as query values', () => {
    assert.equal(displayConfigUrl('http://127.0.0.1:8080/${env:TENANT}/mcp?key=${env:K}&plain=abc'), 'http://127.0.0.1:8080/${env:TENANT}/mcp?key=${env:K}&plain=…');
    assert.equal(displayConfigUrl('https://${input:user}:${input:pass}@example.com/mcp'), 'https://example.com/mcp');
    assert.equal(displayConfigUrl('https://example.com/mcp?key=pre${env:K}'), 'https://example.com/mcp?key=…', 'a value around a reference is hidden whole');
    assert.equal(displayConfigUrl('${env:BASE}/mcp?x=1#f'), '${env:BASE}/mcp?x=…');
  });

  test('describeLaunch shows the config form when given, else the hidden-query form', () => {
    assert.equal(describeLaunch({ type: 'http', url: 'http://h/SECRET/mcp?k=SECRET', shownUrl: 'http://h/${env:K}/mcp?k=${env:K}', headers: {} }), 'HTTP http://h/${env:K}/mcp?k=${env:K}');
    assert.equal(describeLaunch({ type: 'sse', url: 'http://u:p@h/sse?k=SECRET', headers: {} }), 'HTTP+SSE http://h/sse?k=…');
  });
});
