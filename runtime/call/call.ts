import type { AnyToolHandler, CallContext, CallToolResult, HandlerContext, ToolHandler } from '../api/agent-types.js';
import type { GovernanceAuthorization } from '../api/governance-types.js';
import type { AppliedNormalization } from '../artifacts/contract.js';
import type { ProfileRelease } from '../artifacts/profile.js';
import type { Served, ToolSlots } from '../artifacts/served.js';
import { AdcpError, type AdcpErrorBody } from '../wire/errors.js';
import { errorResult } from '../wire/results.js';
import type { AgentServices } from '../services/agent-services.js';
import type { TaskOrigin } from '../services/tasks/service.js';
import type { ItemsPlan } from './items.js';
import type { RuntimeLog } from '../ops/log.js';

/**
 * One call on its way through the stages (pipeline.ts): what each stage found, for the stages after it. A stage
 * sets the fields it owns, in stage order; a field is read only by stages after the one that sets it.
 */

/** What a stage answers: the call's answer, ending it, or nothing to go on to the next stage. */
export type Answer = CallToolResult;

/**
 * A step of the call, Fastify-hook style: small, named, ordered by the list in pipeline.ts. `idle`, on a stage that
 * applies only to some calls: true when it has nothing to do for this one (the stage's own guard, so the two cannot
 * drift); runCall then skips it, and it gets no span (ops/call-watch.ts).
 */
export type Stage = ((call: Call) => Answer | void | Promise<Answer | void>) & { readonly idle?: (call: Call) => boolean };

/** Run on the way out, last registered first, with the answer the call is about to send (or a replacement). */
export type OnAnswer = (answer: Answer, call: Call) => Answer | Promise<Answer>;

/** What the stages consult besides the call itself: the profile's artifacts and the agent's hooks and services. */
export interface CallEnv {
  readonly served: Served;
  /** AgentOptions.authorize: runs with the parsed value the handler will see, before the handler. */
  readonly authorize?: (tool: string, value: Record<string, unknown>, ctx: HandlerContext) => void | Promise<void>;
  /** The protocol services (the replay contract, tasks …), each made on first use. */
  readonly services: AgentServices;
  /** The credential-looking names the tool's own request schemas declare (artifacts/declared-names.ts). */
  readonly declaredCredentials?: (tool: string) => ReadonlySet<string>;
  /** The agent's log (ops/log.ts): the call's line, and the faults a stage meets. */
  readonly log: RuntimeLog;
}

export class Call {
  /** The arguments exactly as the buyer sent them: the parse-once JSON copy (read). */
  args!: Record<string, unknown>;
  /** `{ context }`: the caller's context, copied before anything runs, what every answer echoes (read). */
  echo: { context: unknown } | undefined;
  /** The release answering the call (select); until then, the highest served. */
  release: ProfileRelease;
  /** The tool's artifacts in that release (select). */
  slot!: ToolSlots;
  /** The request as parsed in the answering release (parse): what convert-down reads the answer against. */
  asked!: Record<string, unknown>;
  /** The request the handler sees: `asked`, or converted up to the handler's release (convert-up). */
  value!: Record<string, unknown>;
  /** What parse did to the request on the way in. */
  applied: { normalized: readonly AppliedNormalization[]; stripped: readonly string[] } = { normalized: [], stripped: [] };
  /** A batch request some of whose items failed their own schema (parse): answered item by item (items.ts). */
  plan: ItemsPlan | undefined;
  /** The handler for the answering release (handler). */
  fn!: ToolHandler<any, any, any>;
  /** The release that handler is written in: the answering one, or the highest serving the tool (handler). */
  shape!: ProfileRelease;
  /** The answer's body, from the handler on (handle, convert-down, merge-items, envelope). */
  body!: Record<string, unknown>;
  /** Whether the answer replays a first execution's (idempotency). */
  replayed = false;
  /** The call's request id, when something watches it (ops/call-watch.ts): on its log line and its fault lines. */
  requestId: string | undefined;
  /** Why the call's push_notification_config could not be honoured (push-config): `ctx.task()` refuses with it. */
  pushUnusable: AdcpError | undefined;
  /** The governance authorization the call runs under (governance): the handler's `ctx.governance`. */
  governance: GovernanceAuthorization | undefined;
  /** Hooks run on the way out (idempotency completes or releases its claim). */
  readonly onAnswer: OnAnswer[] = [];

  constructor(
    readonly env: CallEnv,
    readonly tool: string,
    /** The arguments as the transport passed them: read once (read.ts), never again. */
    readonly input: unknown,
    readonly handler: AnyToolHandler,
    readonly ctx: CallContext,
  ) {
    this.release = env.served.defaultRelease ?? env.served.releases[0]!;
  }

  get served(): Served {
    return this.env.served;
  }

  /** Aborted when the runtime abandons the call's handler (the handler timeout, call/handle.ts). */
  readonly abandon = new AbortController();

  /**
   * What the authorize hook and the handler receive besides the request; `ctx.signal` aborts when the transport's own
   * signal does or the runtime abandons the handler.
   */
  handlerContext(): HandlerContext {
    if (this.#hctx !== undefined) return this.#hctx;
    // What the entry decided of the request (`admission`) is the transport's, not the handler's.
    const { admission: _admission, ...ctx } = this.ctx;
    return (this.#hctx = {
      ...ctx,
      signal: this.handlerSignal(),
      tool: this.tool,
      release: this.release.key,
      mode: this.served.mode,
      ...this.applied,
      ...(this.governance !== undefined ? { governance: this.governance } : {}),
      ...(this.plan !== undefined ? { requestIndex: this.plan.requestIndex } : {}),
      task: async (options) => {
        const refused = this.pushUnusable ?? missingOperationId(this);
        if (refused !== undefined) throw refused;
        return this.env.services.tasks.create(this.taskOrigin(), options);
      },
    });
  }

  /**
   * The handler's signal: aborted when the runtime abandons the handler, or when the transport's own signal aborts
   * (forwarded with one listener: AbortSignal.any costs a weak-referenced composite per call).
   */
  private handlerSignal(): AbortSignal {
    const transport = this.ctx.signal;
    if (transport instanceof AbortSignal) {
      if (transport.aborted) this.abandon.abort(transport.reason);
      else transport.addEventListener('abort', () => this.abandon.abort(transport.reason), { once: true });
    }
    return this.abandon.signal;
  }

  /** Who asked for a task this call makes, and in which releases; the A2A Task it answers, over A2A. */
  private taskOrigin(): TaskOrigin {
    const a2a = this.ctx.a2a as { taskId?: unknown } | undefined;
    return {
      principal: this.ctx.principal ?? '',
      account: this.args.account,
      taskType: this.tool,
      protocol: this.release.protocols?.[this.tool] ?? 'protocol',
      release: this.release.key,
      shape: this.shape.key,
      request: this.asked,
      ...(typeof a2a?.taskId === 'string' && a2a.taskId !== '' ? { a2aTaskId: a2a.taskId } : {}),
    };
  }

  #hctx: HandlerContext | undefined;

  /** An AdCP rejection of this call: the caller's context echoed, labelled with the answering release. */
  reject(error: AdcpErrorBody): Answer {
    return errorResult(error, this.echo, this.release.key);
  }

  /** Whether the handler is written in another release than the one answering (its request and answer converted). */
  get converted(): boolean {
    return this.shape !== this.release && this.plan?.body === undefined;
  }
}

/**
 * AdCP 3.2 (L3/webhooks.mdx, Operation IDs; core/push-notification-config.json): a task that registers a webhook
 * without `push_notification_config.operation_id` is refused, INVALID_REQUEST, since the webhook it must send requires
 * one. Only in a release whose push config declares it (3.2, not 3.0.6), and only when the call goes async: an answer
 * given in the call sends no webhook and needs none.
 */
function missingOperationId(call: Call): AdcpError | undefined {
  const push = call.asked.push_notification_config;
  if (push === null || typeof push !== 'object' || Array.isArray(push)) return undefined;
  if ((push as Record<string, unknown>).operation_id !== undefined || call.release.pushOperationId?.includes(call.tool) !== true) return undefined;
  return new AdcpError('INVALID_REQUEST', `${call.tool}: push_notification_config.operation_id is required of a task that registers a webhook (AdCP ${call.release.key}): the webhook echoes it`, {
    recovery: 'correctable',
    field: 'push_notification_config.operation_id',
    suggestion: 'send a unique operation_id (a UUID) in push_notification_config, or omit push_notification_config and poll the task',
  });
}

/** What a fault's log line says of the call it happened in: the tool, the release, who called, the request id. */
export function faultFields(call: Call): Record<string, unknown> {
  return { tool: call.tool, release: call.release.key, principal: call.ctx.principal ?? null, ...(call.requestId !== undefined ? { request_id: call.requestId } : {}) };
}

/** The success answer for a body: structuredContent, and the same JSON as text. */
export function success(body: Record<string, unknown>): Answer {
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
}
