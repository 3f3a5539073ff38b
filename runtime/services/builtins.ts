import type { AnyToolHandler } from '../api/agent-types.js';
import type { Served } from '../artifacts/served.js';
import type { AgentServices } from './agent-services.js';
import { taskReaders } from './tasks/reads.js';

/**
 * The handlers the runtime itself gives a profile, for the tools it serves that the team's set leaves out:
 * get_adcp_capabilities (the profile's body, per release, so never converted) and the task reads over the agent's
 * own tasks. A team's own handler for one of them wins.
 */
export function builtinHandlers(served: Served, services: AgentServices): Readonly<Record<string, AnyToolHandler>> {
  const serving = (tool: string): string[] => served.releasesServing(tool);
  const out: Record<string, AnyToolHandler> = {
    get_adcp_capabilities: Object.fromEntries(serving('get_adcp_capabilities').map((key) => [key, () => services.capabilities.of(served.release(key))])),
  };
  const readers = taskReaders(services.tasks);
  for (const tool of ['get_task_status', 'list_tasks'] as const) if (serving(tool).length > 0) out[tool] = readers[tool];
  if (serving('sync_agent_notification_configs').length > 0) out.sync_agent_notification_configs = services.notifications.sync;
  return out;
}
