import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** An agent in a process of its own, driven over stdin: one JSON command per line, one JSON result per line. */
export interface AgentProcess {
  readonly child: ChildProcess;
  send(command: Record<string, unknown>): Promise<any>;
}

/**
 * Starts `script` (a module that prints `{"ready": pid}` once its agent is ready, then answers each stdin line
 * `{"id", …command}` with `{"id", "result"}`) with `args`, and resolves once it is ready. Live processes are kept in
 * `children`, for the test file to kill -9 at its end; one that exits before it is ready rejects with its stderr.
 */
export async function agentProcess(script: string, args: readonly string[], children: Set<ChildProcess>): Promise<AgentProcess> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.add(child);
  child.on('exit', () => children.delete(child));
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const waiting = new Map<number, (r: unknown) => void>();
  let ready!: () => void;
  const started = new Promise<void>((resolve, reject) => {
    ready = resolve;
    child.on('exit', (code, signal) => reject(new Error(`the agent process exited (${code ?? signal}) before it was ready: ${stderr}`)));
  });
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const m = JSON.parse(line) as { ready?: number; id?: number; result?: unknown };
    if (m.ready !== undefined) ready();
    else waiting.get(m.id!)?.(m.result);
  });
  await started;
  let next = 0;
  return {
    child,
    send(command) {
      const id = next++;
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        child.stdin!.write(`${JSON.stringify({ id, ...command })}\n`);
      });
    },
  };
}
