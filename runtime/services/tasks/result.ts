import type { Served } from '../../artifacts/served.js';
import type { ProfileRelease } from '../../artifacts/profile.js';
import { responseEnvelope, statusDefined } from '../../wire/response.js';
import type { TaskRecord } from './records.js';

/**
 * A task's terminal result as its buyer reads it, a response of the task's tool like the call's own answer would
 * have been: in the envelope the runtime owns (`status` completed unless the result states another its release
 * defines, `adcp_version` the release), checked against the response schema of the release its handler is written in
 * (development mode, as every answer is), then converted down to the buyer's release (docs/conversions.md). A
 * `context` the result states is kept (a sandbox's force_task_completion states one); else the task's webhook echoes
 * the request's. A result its handler's release refuses, or that has no form in the buyer's, is the agent's bug:
 * `complete` throws, naming why, and the task stays open.
 */
export function taskResult(served: Served, task: TaskRecord, result: Record<string, unknown>): Record<string, unknown> {
  const shape = served.byKey(task.shape);
  const release = served.byKey(task.release);
  if (shape === undefined || release === undefined) throw new Error(`adcp-codegen: task ${task.taskId} was made for AdCP ${task.release}, which this agent no longer serves`);
  const inShape = enveloped(served, task, shape, result);
  const slot = served.slot(shape, task.taskType);
  if (slot !== undefined && served.mode === 'development') {
    const verdict = served.response(slot)(inShape);
    if (!verdict.ok) {
      const first = verdict.issues[0]!;
      throw new Error(`adcp-codegen: the result of task ${task.taskId} (${task.taskType}) does not match the AdCP ${shape.key} response schema: ${first.pointer || 'the result'} ${first.message}`);
    }
  }
  if (shape === release) return inShape;
  const down = served.convertDown(shape, release, task.taskType, result, task.request);
  if ('refused' in down) throw new Error(`adcp-codegen: the result of task ${task.taskId} has no AdCP ${release.key} form (${down.refused})`);
  return enveloped(served, task, release, down.body);
}

/** The result in `release`'s envelope, as call/envelope.ts puts a call's answer; its own context kept. */
function enveloped(served: Served, task: TaskRecord, release: ProfileRelease, result: Record<string, unknown>): Record<string, unknown> {
  const slot = served.slot(release, task.taskType);
  const domain = release.domainStatus?.[task.taskType];
  const defines = (body: Record<string, unknown>): boolean => domain?.includes(body.status as string) === true || (slot !== undefined && statusDefined(served.response(slot), body));
  const made = responseEnvelope(result, result.context, release.key, defines, domain === undefined);
  if (!made.ok) throw new Error(`adcp-codegen: the result of task ${task.taskId} (${task.taskType}): ${made.message}`);
  for (const field of release.omitEnvelope?.[task.taskType] ?? []) if (field !== 'status' || result.status === undefined) delete made.body[field];
  return made.body;
}
