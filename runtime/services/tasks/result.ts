import type { Served } from '../../artifacts/served.js';
import type { TaskRecord } from './records.js';

/**
 * A task's terminal result as its buyer reads it: checked against the response schema of the release its handler
 * is written in (development mode, as every answer is), then converted down to the buyer's release as the call's own
 * answer would have been (docs/conversions.md). A result its handler's release refuses, or that has no form in the
 * buyer's, is the agent's bug: `complete` throws, naming why, and the task stays open.
 */
export function taskResult(served: Served, task: TaskRecord, result: Record<string, unknown>): Record<string, unknown> {
  const shape = served.byKey(task.shape);
  const release = served.byKey(task.release);
  if (shape === undefined || release === undefined) throw new Error(`adcp-codegen: task ${task.taskId} was made for AdCP ${task.release}, which this agent no longer serves`);
  const slot = served.slot(shape, task.taskType);
  if (slot !== undefined && served.mode === 'development') {
    const verdict = served.response(slot)(result);
    if (!verdict.ok) {
      const first = verdict.issues[0]!;
      throw new Error(`adcp-codegen: the result of task ${task.taskId} (${task.taskType}) does not match the AdCP ${shape.key} response schema: ${first.pointer || 'the result'} ${first.message}`);
    }
  }
  if (shape === release) return result;
  const down = served.convertDown(shape, release, task.taskType, result, task.request);
  if ('refused' in down) throw new Error(`adcp-codegen: the result of task ${task.taskId} has no AdCP ${release.key} form (${down.refused})`);
  return down.body;
}
