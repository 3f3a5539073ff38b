import type { AgentCard } from '@a2a-js/sdk';

/** An A2A 0.3 agent card for a test server at `base` (JSON-RPC at `/a2a`, data in and out, no streaming). */
export function v03Card(base: string, name: string, description: string, skills: AgentCard['skills']): AgentCard {
  return {
    name,
    description,
    url: `${base}/a2a`,
    version: '1.0.0',
    protocolVersion: '0.3.0',
    preferredTransport: 'JSONRPC',
    capabilities: { streaming: false, pushNotifications: false },
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json'],
    skills,
  };
}
