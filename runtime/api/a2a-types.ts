/**
 * The A2A shapes the executor (a2a.ts) works with, structural so the generated set imports nothing from either
 * @a2a-js/sdk major: the executor, its options, the RequestContext and event bus it is handed, and an agent-card
 * skill.
 */

export interface A2AExecutor {
  execute(requestContext: A2ARequestContext, eventBus: A2AEventBus): Promise<void>;
  cancelTask(taskId: string, eventBus: A2AEventBus): Promise<void>;
}

export interface A2AExecutorOptions {
  /**
   * The A2A Task state of an AdCP rejection. `failed` (default) is AdCP's transport error mapping: a failed Task
   * carrying `adcp_error` in an artifact DataPart. `completed` keeps the same artifact (its DataPart `status` is
   * still `failed`) on a completed Task, for AdCP clients that extract artifacts only from completed Tasks:
   * @adcp/sdk up to 6.11 (adcontextprotocol/adcp-client#1571, fixed upstream by #1572/#1577) reads no `adcp_error`
   * from a failed Task, so its storyboards and fuzzer see "Task failed" instead of the error code.
   */
  rejectedTaskState?: 'failed' | 'completed';
}

/** What both majors' RequestContext share (parts are read structurally: their shapes differ by major). */
export interface A2ARequestContext {
  readonly userMessage: { readonly parts: readonly unknown[] };
  readonly taskId: string;
  readonly contextId: string;
  readonly context?: unknown;
}

export interface A2AEventBus {
  publish(event: unknown): void;
  finished(): void;
}

/** An agent-card skill, assignable to the AgentSkill of either major. */
export interface A2ASkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples: string[];
  inputModes: string[];
  outputModes: string[];
  securityRequirements: never[];
}

/**
 * Where the A2A server keeps its Tasks: @a2a-js/sdk's TaskStore, structurally (either major; tasks are the SDK's own
 * objects, read here only by `id`). The entry's default keeps a bounded number in memory (transports/http/task-store.ts);
 * a durable store implements the same three methods. `context` is the SDK's ServerCallContext: its `user` scopes a
 * task to the principal that created it.
 */
export interface A2ATaskStore {
  save(task: A2AStoredTask, context?: unknown): Promise<void>;
  load(taskId: string, context?: unknown): Promise<A2AStoredTask | undefined>;
  /** A2A 1.0's tasks/list (the 1.x SDK calls it); 0.3 never does. */
  list?(params: Record<string, unknown>, context?: unknown): Promise<{ tasks: A2AStoredTask[]; nextPageToken: string; pageSize: number; totalSize: number }>;
}

/** A Task as either SDK major saves it: an object with its id (the rest is the SDK's). */
export interface A2AStoredTask {
  readonly id: string;
  readonly [key: string]: unknown;
}
