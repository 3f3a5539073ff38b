import { isObject } from '../../wire/json-copy.js';

/**
 * Which calls need credentials (AdCP's tiered model, L2/authentication.mdx: discovery is public, everything that
 * reads tenant data or changes state is not), decided from the JSON-RPC message before any of it runs.
 *
 * Public over MCP: `initialize`, `ping`, `tools/list`, notifications, a client's responses, and `tools/call` of a
 * tool in `publicTools`. Over A2A: the agent card (a GET, not classified here), and `message/send` or
 * `message/stream` (A2A 1.0: `SendMessage`, `SendStreamingMessage`) whose one DataPart names a public skill.
 * Everything else is protected, a batch whenever one of its members is, and anything this cannot read is protected
 * too: the classification errs towards asking for credentials.
 */

const MCP_PUBLIC_METHODS = new Set(['initialize', 'ping', 'tools/list']);

export function mcpIsPublic(message: unknown, publicTools: ReadonlySet<string>): boolean {
  const members = Array.isArray(message) ? message : [message];
  return members.every((m) => mcpMemberIsPublic(m, publicTools));
}

function mcpMemberIsPublic(m: unknown, publicTools: ReadonlySet<string>): boolean {
  if (!isObject(m)) return false;
  const method = m.method;
  // A response to a request of the server's (none in stateless mode): nothing of the agent's runs.
  if (method === undefined) return 'result' in m || 'error' in m;
  if (typeof method !== 'string') return false;
  if (MCP_PUBLIC_METHODS.has(method) || method.startsWith('notifications/')) return true;
  if (method !== 'tools/call') return false;
  const name = isObject(m.params) ? m.params.name : undefined;
  return typeof name === 'string' && publicTools.has(name);
}

const A2A_SEND_METHODS = new Set(['message/send', 'message/stream', 'SendMessage', 'SendStreamingMessage']);

export function a2aIsPublic(message: unknown, publicTools: ReadonlySet<string>): boolean {
  if (!isObject(message) || typeof message.method !== 'string' || !A2A_SEND_METHODS.has(message.method)) return false;
  const sent = isObject(message.params) ? message.params.message : undefined;
  const parts = isObject(sent) && Array.isArray(sent.parts) ? sent.parts : [];
  const data = parts.map(dataOf).filter((d) => d !== undefined);
  if (data.length !== 1 || !isObject(data[0])) return false;
  const skill = data[0].skill;
  return typeof skill === 'string' && publicTools.has(skill);
}

/**
 * A DataPart's data in either wire form: A2A 0.3 `{ kind: "data", data }`, A2A 1.0's JSON `{ data }` (a part with
 * `text`, `raw` or `url` is that kind first, as the 1.x SDK reads it).
 */
function dataOf(part: unknown): unknown {
  if (!isObject(part)) return undefined;
  if (part.kind !== undefined) return part.kind === 'data' ? part.data : undefined;
  if (part.text !== undefined || part.raw !== undefined || part.url !== undefined) return undefined;
  return part.data;
}
