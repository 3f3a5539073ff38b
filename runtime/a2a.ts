import type { Agent, CallToolResult, ToolHandler } from './agent.js';
import { resultBody, UnknownToolError } from './agent.js';
import { invalidRequest } from './errors.js';

/**
 * AdCP over A2A: the same pipeline behind an A2A skill dispatch. A buyer addresses a tool with a Message holding one
 * DataPart `{ skill, input }` (`parameters` is accepted as the older alias, as @adcp/sdk does); the answer is a Task,
 * `completed` or `failed`, whose artifact carries the AdCP response body (or the `adcp_error` rejection) as a
 * DataPart. A2A's Task.state tracks the transport call; the AdCP `status` inside the artifact tracks the work.
 *
 * Typed structurally against @a2a-js/sdk's AgentExecutor, so the generated set imports nothing from it; pass the
 * result to `new DefaultRequestHandler(card, taskStore, executor)`.
 */
export interface A2AExecutor {
  execute(requestContext: A2ARequestContext, eventBus: A2AEventBus): Promise<void>;
  cancelTask(taskId: string, eventBus: A2AEventBus): Promise<void>;
}

export interface A2ARequestContext {
  readonly userMessage: { readonly parts: readonly { kind: string; data?: unknown }[] };
  readonly taskId: string;
  readonly contextId: string;
  readonly context?: unknown;
}

export interface A2AEventBus {
  publish(event: unknown): void;
  finished(): void;
}

export interface A2ASkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  inputModes: string[];
  outputModes: string[];
}

export function createA2AExecutor(agent: Agent, handlers: Record<string, ToolHandler<any, any>>): A2AExecutor {
  const all: Record<string, ToolHandler<any, any>> = { ...handlers };
  if (all.get_adcp_capabilities === undefined) all.get_adcp_capabilities = (_args, ctx) => agent.capabilities(ctx.release);
  return {
    async execute(request, bus) {
      const task = (result: CallToolResult, skill: string): unknown => ({
        kind: 'task',
        id: request.taskId,
        contextId: request.contextId,
        status: { state: result.isError === true ? 'failed' : 'completed', timestamp: new Date().toISOString() },
        artifacts: [{ artifactId: `${request.taskId}-result`, name: skill, parts: [{ kind: 'data', data: resultBody(result) }] }],
        history: [request.userMessage],
      });
      const part = request.userMessage.parts.find((p) => p.kind === 'data');
      const data = part?.data;
      if (data === null || typeof data !== 'object' || Array.isArray(data) || typeof (data as Record<string, unknown>).skill !== 'string') {
        const body = {
          adcp_error: invalidRequest('a2a', [{ pointer: '', keyword: 'required', message: 'must be a DataPart { skill, input } naming an AdCP tool' }]),
          status: 'failed',
          adcp_version: agent.releases[0],
        };
        bus.publish(task({ content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body, isError: true }, 'unknown'));
        bus.finished();
        return;
      }
      const { skill, input, parameters } = data as { skill: string; input?: unknown; parameters?: unknown };
      const handler = Object.prototype.hasOwnProperty.call(all, skill) ? all[skill] : undefined;
      let result: CallToolResult;
      try {
        if (handler === undefined) throw new UnknownToolError(skill);
        result = await agent.call(skill, input ?? parameters ?? {}, handler, { a2a: { taskId: request.taskId, contextId: request.contextId } });
      } catch (e) {
        if (!(e instanceof UnknownToolError)) throw e;
        // As on MCP: an unknown skill learns nothing beyond that.
        const body = { adcp_error: { code: 'INVALID_REQUEST', message: `Tool ${skill} not found`, recovery: 'correctable' }, status: 'failed', adcp_version: agent.releases[0] };
        result = { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body, isError: true };
      }
      bus.publish(task(result, skill));
      bus.finished();
    },
    async cancelTask(taskId, bus) {
      // Every AdCP call here completes within execute(); there is nothing in flight to cancel.
      bus.publish({ kind: 'status-update', taskId, contextId: '', status: { state: 'canceled', timestamp: new Date().toISOString() }, final: true });
      bus.finished();
    },
  };
}

/** Agent-card skills for the profile's tools (tools/list descriptions reused). */
export function a2aSkills(agent: Agent, release?: string): A2ASkill[] {
  return agent.toolsList(release).map((t) => ({
    id: t.name,
    name: t.name,
    description: `${t.description ?? `AdCP tool ${t.name}`} Send a DataPart { "skill": "${t.name}", "input": { … } }.`,
    tags: ['adcp'],
    inputModes: ['application/json'],
    outputModes: ['application/json'],
  }));
}
