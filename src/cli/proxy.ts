/**
 * The CLI's proxies: HTTPS_PROXY, HTTP_PROXY, ALL_PROXY and NO_PROXY (either case) as curl and
 * most tools read them (proxy-from-env), through the proxy agents of http-proxy-agent and
 * https-proxy-agent. Only the CLI installs these: in VS Code the editor applies its own proxy
 * settings (`http.proxySupport`) to node:http/https, and env proxies are not applied twice.
 * Note: loopback addresses are proxied too unless NO_PROXY names them (as curl does).
 */
import * as http from 'node:http';
import { HttpProxyAgent } from 'http-proxy-agent';
import { HttpsProxyAgent } from 'https-proxy-agent';
import { getProxyForUrl } from 'proxy-from-env';
import { KEEP_ALIVE_AGENT_OPTIONS, type AgentChooser } from '../transport/nodeHttp';

const PROXY_VARIABLES = ['https_proxy', 'http_proxy', 'all_proxy'];

/** Whether the environment names a proxy at all (then the agents below are worth installing). */
export function hasProxyVariables(env: NodeJS.ProcessEnv): boolean {
  return PROXY_VARIABLES.some((name) => Boolean(env[name] || env[name.toUpperCase()]));
}

/**
 * Agents by the environment's proxies: a keep-alive proxy agent per (protocol, proxy), and
 * `direct` for URLs without a proxy (none set, or NO_PROXY).
 */
export function environmentProxyAgents(direct: AgentChooser): AgentChooser {
  const agents = new Map<string, http.Agent>();
  return (url) => {
    const proxy = getProxyForUrl(url);
    if (!proxy) return direct(url);
    const key = `${url.protocol} ${proxy}`;
    let agent = agents.get(key);
    if (agent === undefined) {
      agent = proxyAgent(url.protocol, proxy);
      agents.set(key, agent);
    }
    return agent;
  };
}

function proxyAgent(protocol: string, proxy: string): http.Agent {
  try {
    return protocol === 'https:' ? new HttpsProxyAgent(proxy, KEEP_ALIVE_AGENT_OPTIONS) : new HttpProxyAgent(proxy, KEEP_ALIVE_AGENT_OPTIONS);
  } catch {
    // The value is not shown: it may hold a password.
    throw new TypeError(`the proxy for ${protocol.slice(0, -1)} URLs (HTTPS_PROXY, HTTP_PROXY or ALL_PROXY) is not a valid URL`);
  }
}
