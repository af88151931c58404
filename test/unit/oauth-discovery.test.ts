import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBearerChallenge } from '../../src/auth/challenge';
import { authorizationServerMetadataUrls, canonicalResource, protectedResourceMetadataUrls, resourceCovers } from '../../src/auth/discovery';

test('Bearer challenge parameters: quoted, unquoted, escaped, among other schemes', () => {
  const c = parseBearerChallenge(
    'Basic realm="x", Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", error_description="needs \\"write\\""',
  );
  assert.deepEqual(c.scopes, ['files:read', 'files:write']);
  assert.equal(c.error, 'insufficient_scope');
  assert.equal(c.resourceMetadata, 'https://mcp.example.com/.well-known/oauth-protected-resource');
  assert.equal(c.errorDescription, 'needs "write"');
  assert.deepEqual(parseBearerChallenge('Bearer realm=example, scope=a'), { resourceMetadata: undefined, scopes: ['a'], error: undefined, errorDescription: undefined });
  assert.deepEqual(parseBearerChallenge('Basic dXNlcjpwYXNz==, Bearer scope="s"').scopes, ['s']);
  assert.equal(parseBearerChallenge('Bearer').scopes, undefined);
  assert.deepEqual(parseBearerChallenge(null), {});
  assert.deepEqual(parseBearerChallenge('Basic realm="x"'), {});
  // Garbage never throws and never loops.
  for (const junk of ['=', '"', 'Bearer ="', 'Bearer scope="unterminated', ',,,', 'Bearer a=b=c']) parseBearerChallenge(junk);
});

test('PRM well-known order: path-suffixed, then root; root only for a root endpoint', () => {
  assert.deepEqual(protectedResourceMetadataUrls(new URL('https://example.com/public/mcp')).map(String), [
    'https://example.com/.well-known/oauth-protected-resource/public/mcp',
    'https://example.com/.well-known/oauth-protected-resource',
  ]);
  assert.deepEqual(protectedResourceMetadataUrls(new URL('https://example.com/')).map(String), ['https://example.com/.well-known/oauth-protected-resource']);
});

test('AS metadata order for issuers with and without a path (MCP spec order)', () => {
  assert.deepEqual(authorizationServerMetadataUrls(new URL('https://auth.example.com/tenant1')).map(String), [
    'https://auth.example.com/.well-known/oauth-authorization-server/tenant1',
    'https://auth.example.com/.well-known/openid-configuration/tenant1',
    'https://auth.example.com/tenant1/.well-known/openid-configuration',
  ]);
  assert.deepEqual(authorizationServerMetadataUrls(new URL('https://auth.example.com')).map(String), [
    'https://auth.example.com/.well-known/oauth-authorization-server',
    'https://auth.example.com/.well-known/openid-configuration',
  ]);
});

test('canonical resource and which PRM resources cover an MCP URL', () => {
  assert.equal(canonicalResource(new URL('HTTPS://MCP.Example.com/')), 'https://mcp.example.com');
  assert.equal(canonicalResource(new URL('https://mcp.example.com/mcp#frag')), 'https://mcp.example.com/mcp');
  const mcp = new URL('https://mcp.example.com/server/mcp');
  assert.equal(resourceCovers('https://mcp.example.com/server/mcp', mcp), true);
  assert.equal(resourceCovers('https://mcp.example.com', mcp), true);
  assert.equal(resourceCovers('https://mcp.example.com/server', mcp), true);
  assert.equal(resourceCovers('https://mcp.example.com/serv', mcp), false);
  assert.equal(resourceCovers('https://evil.example.com/server/mcp', mcp), false);
  assert.equal(resourceCovers('http://mcp.example.com/server/mcp', mcp), false);
  assert.equal(resourceCovers('not a url', mcp), false);
});
