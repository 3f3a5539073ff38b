import type { A2AExecutor, A2AExecutorOptions, A2ARequestContext, A2ASkill } from '../api/a2a-types.js';
import type { Agent, AnyToolHandler, CallToolResult } from '../api/agent-types.js';
import { callBound, errorResult, resultBody } from '../wire/results.js';
import type { AdcpErrorBody } from '../wire/errors.js';
import { isObject } from '../wire/json-copy.js';
import { carriedTrace } from './call-trace.js';

/**
 * AdCP over A2A: the same pipeline behind an A2A skill dispatch. A buyer addresses a tool with a Message holding one
 * DataPart `{ skill, input }` (`parameters` is accepted as the older alias, as @adcp/sdk's own client sends it); the
 * answer is a Task whose artifact carries the AdCP body as a DataPart, `completed` or `failed` (AdCP's transport
 * error mapping: a failed task carries `adcp_error` in an artifact DataPart, with a TextPart for humans).
 *
 * One executor serves both @a2a-js/sdk majors in use: 1.x (A2A 1.0, protobuf-shaped parts `{ content: { $case } }`,
 * events wrapped `{ kind, data }`) and 0.3.x (A2A 0.3, parts `{ kind: 'data', data }`, bare events). Which one is
 * calling is read from the RequestContext (1.x carries the whole `request`), so the generated set still imports
 * nothing from either; pass the result to `new DefaultRequestHandler(card, taskStore, executor)`.
 */

// The A2A shapes, where the generated index.d.ts and earlier callers import them.
export type { A2AEventBus, A2AExecutor, A2AExecutorOptions, A2ARequestContext, A2ASkill } from '../api/a2a-types.js';

/**
 * What the executor needs of an agent: the pipeline, and what answers outside it are labelled with. Its capabilities
 * are not: agent.a2aExecutor binds the get_adcp_capabilities handler (bindHandlers) before the executor sees it.
 */
type PipelineAgent = Pick<Agent, 'call' | 'releases' | 'defaultRelease'>;

/** The wire dialect of the calling @a2a-js/sdk. */
type Dialect = 'v1' | 'v0.3';

/** A Part of either major, read into one shape. */
type ReadPart = { type: 'data'; data: unknown } | { type: 'other' };

/** A2A 1.0 TaskState values (the 1.x SDK's protobuf enum). */
const V1_STATE = { completed: 3, failed: 4, canceled: 5 } as const;

/** The problems a Message can have before any tool runs, answered as AdCP INVALID_REQUEST (correctable). */
const INVOCATION_ERRORS = {
  noParts: 'the message carries no parts; send one DataPart { "skill": "<tool>", "input": { … } }',
  noDataPart: 'the message has no DataPart; AdCP tools are addressed by one DataPart { "skill": "<tool>", "input": { … } }, not by text or files',
  manyDataParts: 'the message carries several DataParts; send exactly one { "skill", "input" }',
  dataNotObject: 'the DataPart data must be an object { "skill": "<tool>", "input": { … } }',
  noSkill: 'the DataPart must name the AdCP tool in a non-empty string "skill"',
  inputNotObject: 'the DataPart "input" (or legacy "parameters") must be an object, or omitted',
} as const;

export function createA2AExecutor(agent: PipelineAgent, handlers: Readonly<Record<string, AnyToolHandler>>, options: A2AExecutorOptions = {}): A2AExecutor {
  const rejectedState = options.rejectedTaskState ?? 'failed';
  if (rejectedState !== 'failed' && rejectedState !== 'completed') throw new Error('adcp-codegen: rejectedTaskState must be "failed" or "completed"');
  /** Tasks executing now, so a cancel can answer in the caller's dialect and context. */
  const running = new Map<string, { contextId: string; dialect: Dialect }>();

  return {
    async execute(request, bus) {
      const dialect = dialectOf(request);
      running.set(request.taskId, { contextId: request.contextId, dialect });
      try {
        const result = await invoke(agent, handlers, request);
        const rejected = result.result.isError === true;
        bus.publish(taskEvent(dialect, request, result.skill, resultBody(result.result), rejected, rejected ? rejectedState : 'completed'));
      } finally {
        running.delete(request.taskId);
        bus.finished();
      }
    },
    async cancelTask(taskId, bus) {
      // Every AdCP call here completes within execute(); a cancel that reaches an in-flight call gets a final
      // `canceled` status in the caller's dialect, and execute()'s own finished() closes the bus.
      const task = running.get(taskId);
      if (task === undefined) return;
      const status = { state: task.dialect === 'v1' ? V1_STATE.canceled : 'canceled', timestamp: new Date().toISOString() };
      bus.publish(
        task.dialect === 'v1'
          ? { kind: 'statusUpdate', data: { taskId, contextId: task.contextId, status: { ...status, message: undefined }, metadata: undefined } }
          : { kind: 'status-update', taskId, contextId: task.contextId, status, final: true },
      );
    },
  };
}

/** The message → the AdCP call and its result; every failure becomes an AdCP error body. */
async function invoke(
  agent: PipelineAgent,
  handlers: Readonly<Record<string, AnyToolHandler>>,
  request: A2ARequestContext,
): Promise<{ skill: string; result: CallToolResult }> {
  const parsed = readInvocation(request.userMessage.parts);
  if (!parsed.ok) {
    return { skill: parsed.skill ?? 'unknown', result: rejection(agent, { code: 'INVALID_REQUEST', message: `A2A: ${parsed.message}`, recovery: 'correctable' }, parsed.input) };
  }
  const { skill, input } = parsed;
  // As on MCP: an unknown skill is UNSUPPORTED_FEATURE naming only the skill, with the caller's context; a failure
  // of the agent itself is its CONFIGURATION_ERROR (callBound).
  const a2a = { taskId: request.taskId, contextId: request.contextId };
  const trace = carriedTrace(request.context);
  return { skill, result: await callBound(agent, handlers, skill, input, { ...principalOf(request.context), a2a, ...(trace !== undefined ? { trace } : {}) }) };
}

/**
 * The authenticated agent, from the SDK's ServerCallContext: its User, when authenticated, names the principal (the
 * HTTP entry's PrincipalUser: `userName`, and `auth`, what the authenticator said, the credential left out). An
 * executor served by other means (an Express app of the agent's own) passes whatever User its userBuilder made.
 */
function principalOf(context: unknown): { principal?: string; auth?: Record<string, unknown> } {
  const user = isObject(context) ? context.user : undefined;
  if (!isObject(user) || user.isAuthenticated !== true || typeof user.userName !== 'string' || user.userName === '') return {};
  return { principal: user.userName, ...(isObject(user.auth) ? { auth: user.auth } : {}) };
}

type Invocation = { ok: true; skill: string; input: Record<string, unknown> } | { ok: false; message: string; skill?: string; input?: unknown };

/** The AdCP-over-A2A convention: exactly one DataPart `{ skill, input }` (or the legacy `parameters`). */
function readInvocation(parts: readonly unknown[]): Invocation {
  if (!Array.isArray(parts) || parts.length === 0) return { ok: false, message: INVOCATION_ERRORS.noParts };
  const data = parts.map(readPart).filter((p): p is Extract<ReadPart, { type: 'data' }> => p.type === 'data');
  if (data.length === 0) return { ok: false, message: INVOCATION_ERRORS.noDataPart };
  if (data.length > 1) return { ok: false, message: INVOCATION_ERRORS.manyDataParts };
  const value = data[0]!.data;
  if (!isObject(value)) return { ok: false, message: INVOCATION_ERRORS.dataNotObject };
  // `input` when the part has one (null included: arguments are an object or absent, as over MCP), else `parameters`.
  const input = Object.prototype.hasOwnProperty.call(value, 'input') ? value.input : value.parameters;
  const skill = typeof value.skill === 'string' && value.skill.length > 0 ? value.skill : undefined;
  if (skill === undefined) return { ok: false, message: INVOCATION_ERRORS.noSkill, input };
  if (input !== undefined && !isObject(input)) return { ok: false, message: INVOCATION_ERRORS.inputNotObject, skill, input };
  return { ok: true, skill, input: input ?? {} };
}

/** A DataPart of either major: 0.3 `{ kind: 'data', data }`, 1.x `{ content: { $case: 'data', value } }`. */
function readPart(part: unknown): ReadPart {
  if (!isObject(part)) return { type: 'other' };
  if (part.kind === 'data') return { type: 'data', data: part.data };
  const content = part.content;
  if (isObject(content) && content.$case === 'data') return { type: 'data', data: content.value };
  return { type: 'other' };
}

function dialectOf(request: A2ARequestContext): Dialect {
  // The 1.x RequestContext wraps the whole SendMessageRequest; 0.3's has no `request`.
  return isObject((request as { request?: unknown }).request) ? 'v1' : 'v0.3';
}

/** An AdCP rejection before or around the pipeline, shaped exactly as agent.call shapes its own. */
function rejection(agent: PipelineAgent, error: AdcpErrorBody, input: unknown): CallToolResult {
  return errorResult(error, input, agent.defaultRelease ?? agent.releases[0]!);
}

/**
 * The final Task: one artifact with the AdCP body as a DataPart (first, where @adcp/sdk reads the AdCP status) and,
 * on failure, a TextPart with the error for humans and LLM hosts, as AdCP's A2A error mapping recommends.
 */
function taskEvent(
  dialect: Dialect,
  request: A2ARequestContext,
  skill: string,
  body: Record<string, unknown>,
  failed: boolean,
  state: 'failed' | 'completed',
): unknown {
  const error = failed ? (body.adcp_error as AdcpErrorBody | undefined) : undefined;
  const text = error !== undefined ? `${error.code}: ${error.message}` : undefined;
  const timestamp = new Date().toISOString();
  const artifactId = `${request.taskId}-${failed ? 'error' : 'result'}`;
  if (dialect === 'v1') {
    const part = (content: { $case: 'data'; value: unknown } | { $case: 'text'; value: string }, mediaType: string) => ({ content, metadata: undefined, filename: '', mediaType });
    return {
      kind: 'task',
      data: {
        id: request.taskId,
        contextId: request.contextId,
        status: { state: V1_STATE[state], message: undefined, timestamp },
        artifacts: [
          {
            artifactId,
            name: skill,
            description: '',
            parts: [part({ $case: 'data', value: body }, 'application/json'), ...(text !== undefined ? [part({ $case: 'text', value: text }, 'text/plain')] : [])],
            metadata: undefined,
            extensions: [],
          },
        ],
        history: [request.userMessage],
        metadata: undefined,
      },
    };
  }
  return {
    kind: 'task',
    id: request.taskId,
    contextId: request.contextId,
    status: { state, timestamp },
    artifacts: [{ artifactId, name: skill, parts: [{ kind: 'data', data: body }, ...(text !== undefined ? [{ kind: 'text', text }] : [])] }],
    history: [request.userMessage],
  };
}

/** Agent-card skills for the profile's tools (tools/list descriptions reused). */
export function a2aSkills(agent: Pick<Agent, 'toolsList'>, release?: string): A2ASkill[] {
  return agent.toolsList(release).map((t) => ({
    id: t.name,
    name: t.name,
    description: `${t.description ?? `AdCP tool ${t.name}`} Send one DataPart { "skill": "${t.name}", "input": { … } }.`,
    tags: ['adcp'],
    examples: [],
    inputModes: ['application/json'],
    outputModes: ['application/json'],
    securityRequirements: [],
  }));
}
