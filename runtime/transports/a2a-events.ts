import type { A2ARequestContext } from '../api/a2a-types.js';
import type { AdcpErrorBody } from '../wire/errors.js';
import { isObject } from '../wire/json-copy.js';

/**
 * The A2A events the executor publishes, in the dialect of the @a2a-js/sdk major calling it: 0.3's bare Task, or
 * 1.x's `{ kind: 'task', data }` with protobuf-shaped parts and numeric TaskState values. And their parts, read back
 * where the entry answers in place of a stored Task (a2a-endpoint.ts).
 */

/** The wire dialect of the calling @a2a-js/sdk. */
export type Dialect = 'v1' | 'v0.3';

/** A2A 1.0 TaskState values (the 1.x SDK's protobuf enum). */
export const V1_STATE = { completed: 3, failed: 4, canceled: 5 } as const;

/** What a final Task says: the AdCP body (a success or `{ adcp_error, … }`) of a skill's call, in a Task state. */
export interface TaskAnswer {
  readonly skill: string;
  readonly body: Record<string, unknown>;
  readonly failed: boolean;
  readonly state: 'failed' | 'completed';
}

/**
 * The final Task: one artifact with the AdCP body as a DataPart (first, where @adcp/sdk reads the AdCP status) and,
 * on failure, a TextPart with the error for humans and LLM hosts, as AdCP's A2A error mapping recommends. `history`
 * holds the buyer's message when given.
 */
export function taskEvent(dialect: Dialect, ids: Pick<A2ARequestContext, 'taskId' | 'contextId'>, answer: TaskAnswer, history: readonly unknown[]): unknown {
  const { skill, body, failed, state } = answer;
  const error = failed ? (body.adcp_error as AdcpErrorBody | undefined) : undefined;
  const text = error !== undefined ? `${error.code}: ${error.message}` : undefined;
  const timestamp = new Date().toISOString();
  const artifactId = `${ids.taskId}-${failed ? 'error' : 'result'}`;
  if (dialect === 'v1') {
    const part = (content: { $case: 'data'; value: unknown } | { $case: 'text'; value: string }, mediaType: string) => ({ content, metadata: undefined, filename: '', mediaType });
    return {
      kind: 'task',
      data: {
        id: ids.taskId,
        contextId: ids.contextId,
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
        history: [...history],
        metadata: undefined,
      },
    };
  }
  return {
    kind: 'task',
    id: ids.taskId,
    contextId: ids.contextId,
    status: { state, timestamp },
    artifacts: [{ artifactId, name: skill, parts: [{ kind: 'data', data: body }, ...(text !== undefined ? [{ kind: 'text', text }] : [])] }],
    history: [...history],
  };
}

/** A Task of either dialect as the SDK hands it back (1.x: the Task itself, or an event `{ kind: 'task', data }`). */
export function taskOf(value: unknown): Record<string, unknown> | undefined {
  if (!isObject(value)) return undefined;
  if (value.kind === 'task' && isObject(value.data)) return value.data;
  return typeof value.id === 'string' && isObject(value.status) ? value : undefined;
}

/** The AdCP body of a Task's first artifact (the executor's), in either dialect; undefined when there is none. */
export function bodyOf(task: Record<string, unknown>): Record<string, unknown> | undefined {
  const artifact = Array.isArray(task.artifacts) ? task.artifacts[0] : undefined;
  const part = isObject(artifact) && Array.isArray(artifact.parts) ? artifact.parts[0] : undefined;
  if (!isObject(part)) return undefined;
  const data = part.kind === 'data' ? part.data : isObject(part.content) && part.content.$case === 'data' ? part.content.value : undefined;
  return isObject(data) ? data : undefined;
}
