// proxy-from-env ships no types.
declare module 'proxy-from-env' {
  /** The proxy URL for `url` from HTTP(S)_PROXY / ALL_PROXY / NO_PROXY (either case) in process.env, or ''. */
  export function getProxyForUrl(url: string | URL): string;
}
