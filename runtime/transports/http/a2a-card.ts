import type { A2ASkill } from '../../api/a2a-types.js';
import type { AuthScheme } from '../../api/http-types.js';

/**
 * The agent card, as examples/a2a-agent.js built it before the entry owned it: JSON-RPC at `<base>/a2a`, data in
 * and out, one skill per tool (agent.a2aSkills()), streaming (message/stream answers over SSE). For A2A 0.3 the
 * card names the schemes a 401 offers (securitySchemes/security), so a client knows what to send; `card` fields
 * given by the agent are merged over it. The 1.x SDK's card is A2A 1.0's, with a 0.3 interface beside the 1.0 one,
 * served to 0.3 clients as the 0.3 card (the SDK's compatibility layer answers them).
 */

export interface CardInput {
  readonly base: string;
  readonly name: string;
  readonly skills: A2ASkill[];
  /** The schemes a caller authenticates with; none when the entry has no authenticator. */
  readonly schemes: readonly AuthScheme[];
  readonly given: Record<string, unknown> | undefined;
}

const common = (input: CardInput) => ({
  name: input.name,
  description: `AdCP agent (${input.name}) over A2A: one skill per AdCP tool`,
  version: '1.0.0',
  defaultInputModes: ['application/json'],
  defaultOutputModes: ['application/json'],
  skills: input.skills,
});

export function v03Card(input: CardInput): Record<string, unknown> {
  const schemes = Object.fromEntries(input.schemes.map((s) => [s.toLowerCase(), { type: 'http', scheme: s.toLowerCase() }]));
  return {
    ...common(input),
    url: `${input.base}/a2a`,
    protocolVersion: '0.3.0',
    preferredTransport: 'JSONRPC',
    capabilities: { streaming: true, pushNotifications: false },
    ...(input.schemes.length > 0 ? { securitySchemes: schemes, security: Object.keys(schemes).map((k) => ({ [k]: [] })) } : {}),
    ...input.given,
  };
}

export function v1Card(input: CardInput): Record<string, unknown> {
  return {
    ...common(input),
    supportedInterfaces: [
      { url: `${input.base}/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
      { url: `${input.base}/a2a`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '0.3' },
    ],
    provider: undefined,
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    signatures: [],
    ...input.given,
  };
}
