// An MCP App's view: its `ui://` resource read from the server, the HTML and the security
// metadata (`_meta.ui.csp`, `permissions`, `prefersBorder`) the resource declares, and the
// Content Security Policy made from it. No `vscode`: the editor floor renders what this returns.
import { MCP_APP_MIME_TYPE } from '../../protocol/apps';
import { isRecord } from '../../util/isRecord';
import { zoneIsWithin, zoneOfHostname, type NetworkZone } from '../../util/networkZone';
import type { ReadResourceResult, Resource, ResourceContents } from '../../protocol/schemas';

/** The origins an app declares it needs (McpUiResourceCsp), checked: only well-formed origins. */
export interface AppCsp {
  connectDomains: string[];
  resourceDomains: string[];
  frameDomains: string[];
  baseUriDomains: string[];
}

export interface AppResource {
  uri: string;
  html: string;
  csp: AppCsp;
  /** Declared origins that were left out because they are not plain origins (a quote, a `;`, a keyword). */
  rejectedDomains: string[];
  /**
   * Declared origins left out because they lie further inside the network than the server itself:
   * a remote server's app may not reach this machine (localhost, 127/8, ::1) or the private network
   * (10/8, 192.168/16, *.local, ...) through the editor.
   */
  refusedNetworkDomains: string[];
  /** Whether the view asks for a visible border (undefined: the host decides). */
  prefersBorder?: boolean;
}

/** The resource could not be used as a view; the message says why, for a person. */
export class AppResourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AppResourceError';
  }
}

type CspField = keyof AppCsp;

/**
 * Reads `uri` and returns the view. The content must be `text/html;profile=mcp-app` (text or
 * base64 blob). Its `_meta.ui` is read from the content item, with the resources/list entry as
 * fallback (as the extension's specification says).
 */
export async function loadAppResource(
  read: (uri: string) => Promise<ReadResourceResult>,
  uri: string,
  listed?: Pick<Resource, '_meta'>,
  serverZone: NetworkZone = 'loopback',
): Promise<AppResource> {
  if (!uri.startsWith('ui://')) throw new AppResourceError(`The view ${uri} is not a ui:// resource.`);
  const result = await read(uri);
  const content = result.contents.find((c) => c.uri === uri && isAppMime(c.mimeType)) ?? result.contents.find((c) => isAppMime(c.mimeType));
  if (!content) {
    const types = result.contents.map((c) => c.mimeType ?? 'no type').join(', ') || 'nothing';
    throw new AppResourceError(`The view ${uri} is not an MCP App: expected ${MCP_APP_MIME_TYPE}, the server sent ${types}.`);
  }
  const ui = uiMeta(content._meta) ?? uiMeta(listed?._meta) ?? {};
  const { csp, rejected, refusedNetwork } = checkedCsp(ui.csp, serverZone);
  const resource: AppResource = { uri, html: htmlOf(content), csp, rejectedDomains: rejected, refusedNetworkDomains: refusedNetwork };
  if (typeof ui.prefersBorder === 'boolean') resource.prefersBorder = ui.prefersBorder;
  return resource;
}

/** `text/html;profile=mcp-app`, compared without spaces or case (`text/html; profile=mcp-app`). */
export function isAppMime(mimeType: string | undefined): boolean {
  return mimeType !== undefined && mimeType.replace(/\s+/g, '').toLowerCase() === MCP_APP_MIME_TYPE;
}

function htmlOf(content: ResourceContents): string {
  if (typeof content.text === 'string') return content.text;
  return Buffer.from(typeof content.blob === 'string' ? content.blob : '', 'base64').toString('utf8');
}

function uiMeta(meta: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const ui = meta?.ui;
  return isRecord(ui) ? ui : undefined;
}

/**
 * A source expression we put in a policy: an http(s) or ws(s) origin with an optional port and
 * path, and a `*.` subdomain wildcard only above a registrable-looking name (`https://*.com` would
 * allow every .com site). Never a scheme-less host (its meaning depends on the frame's scheme), a
 * keyword ('unsafe-eval'), a scheme source (`data:`, `blob:`), a bare `*` or anything that could
 * end the directive (`;`, `,`, quotes, whitespace).
 */
const LABEL = '[a-z0-9-]+';
const HOST = `(?:\\*\\.${LABEL}(?:\\.${LABEL})+|${LABEL}(?:\\.${LABEL})*)`;
const ORIGIN = new RegExp(`^(?:https?|wss?)://${HOST}(?::(?:\\d{1,5}|\\*))?(?:/[a-z0-9._~\\-/%]*)?$`, 'i');

/**
 * The well-formed origins of a declared policy. `serverZone` is where the server itself is (a stdio
 * server: 'loopback', it runs here anyway; a remote one: the zone of its URL's host): an origin
 * further inside (a public server naming 127.0.0.1 or 192.168.1.1) is refused in every field, so a
 * remote app cannot reach the user's machine or network from inside the editor.
 */
export function checkedCsp(declared: unknown, serverZone: NetworkZone = 'loopback'): { csp: AppCsp; rejected: string[]; refusedNetwork: string[] } {
  const source = typeof declared === 'object' && declared !== null ? (declared as Record<string, unknown>) : {};
  const rejected: string[] = [];
  const refusedNetwork: string[] = [];
  const field = (name: CspField): string[] => {
    const values = Array.isArray(source[name]) ? (source[name] as unknown[]) : [];
    const kept: string[] = [];
    for (const value of values) {
      if (typeof value !== 'string' || !ORIGIN.test(value)) rejected.push(String(value));
      else if (!zoneIsWithin(zoneOfHostname(hostOfSource(value)), serverZone)) refusedNetwork.push(value);
      else kept.push(value);
    }
    return kept;
  };
  return {
    csp: { connectDomains: field('connectDomains'), resourceDomains: field('resourceDomains'), frameDomains: field('frameDomains'), baseUriDomains: field('baseUriDomains') },
    rejected,
    refusedNetwork,
  };
}

/** The host of a source ORIGIN accepted: between `://` and the port or path. */
function hostOfSource(source: string): string {
  const rest = source.slice(source.indexOf('://') + 3);
  const end = rest.search(/[:/]/);
  return end === -1 ? rest : rest.slice(0, end);
}

/**
 * The policy an app's document gets: exactly what it declared, nothing more. Inline scripts and
 * styles (the examples are single files) and data:/blob: images and media; network and frames only
 * to the declared origins; base URIs to the declared ones, else 'self' (the specification's
 * default); no plugins, no form submissions.
 */
export function appCspDirectives(csp: AppCsp): Array<[directive: string, sources: string[]]> {
  const or = (list: string[]) => (list.length > 0 ? list : ["'none'"]);
  const r = csp.resourceDomains;
  return [
    ['default-src', ["'none'"]],
    ['script-src', ["'unsafe-inline'", ...r]],
    ['style-src', ["'unsafe-inline'", ...r]],
    ['img-src', ['data:', 'blob:', ...r]],
    ['font-src', ['data:', ...r]],
    ['media-src', ['data:', 'blob:', ...r]],
    ['connect-src', or(csp.connectDomains)],
    ['frame-src', or(csp.frameDomains)],
    ['object-src', ["'none'"]],
    ['base-uri', csp.baseUriDomains.length > 0 ? csp.baseUriDomains : ["'self'"]],
    ['form-action', ["'none'"]],
  ];
}

export function formatCsp(directives: Array<[string, string[]]>): string {
  return directives.map(([name, sources]) => `${name} ${sources.join(' ')}`).join('; ');
}

/** The view's own policy, the first <meta> of its document. */
export function appViewCsp(csp: AppCsp): string {
  return formatCsp(appCspDirectives(csp));
}

/**
 * The policy of the page that hosts the view's frame. The frame is a srcdoc, which inherits this
 * policy on top of its own, so it must allow what the view may use: inline scripts (event handler
 * attributes, scripts the view creates; a nonce here would switch 'unsafe-inline' off) and the
 * declared origins. The page's own script and stylesheet come from `cspSource` (the extension's
 * files); the page never inserts server markup into itself, so its 'unsafe-inline' admits nothing
 * of the server's. The view's <meta> policy still limits the view to what it declared.
 */
export function appPageCsp(cspSource: string, csp: AppCsp): string {
  const directives = appCspDirectives(csp).map(([name, sources]): [string, string[]] => {
    switch (name) {
      case 'script-src':
      case 'style-src':
      case 'img-src':
      case 'font-src':
        return [name, [cspSource, ...sources]];
      default:
        return [name, sources];
    }
  });
  return formatCsp(directives);
}
