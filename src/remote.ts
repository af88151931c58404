// What only remote servers need: the HTTP transports and OAuth. It is a bundle of its own
// (dist/remote.js), loaded the first time a remote server is used, so the extension's own bundle
// stays small for people with local servers only. Load it through host/loadRemote.ts.
export { createHttpTransport } from './transport/http';
export { OAuthProvider } from './auth/oauthProvider';
export { FileSecretStore, MemorySecretStore } from './auth/stores';
export { useHttpAgents } from './transport/nodeHttp';
export { ownKeepAliveAgents } from './transport/keepAliveAgents';
export { legacySseEndpoints } from './transport/endpointMemory';
