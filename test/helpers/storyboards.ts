import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';

/** One storyboard step that carries a request payload. */
export interface StoryboardSample {
  /** `<file relative to the compliance dir>#<phase id>/<step id>` */
  readonly id: string;
  readonly task: string;
  /** The payload with runner placeholders filled in, deterministically. */
  readonly request: unknown;
  /** The step expects the agent to reject it (a deliberate negative). */
  readonly expectError: boolean;
}

/**
 * Every `sample_request` in the compliance storyboards, with placeholders filled the way a storyboard runner
 * does: `$generate:uuid_v4#seed` → a UUID v4 derived from the seed, `$context.name` → a string naming it,
 * `{{runner.webhook_url:x}}` → an https URL. Deterministic, so test reports are stable between runs.
 */
export function loadStoryboardSamples(complianceDir: string): StoryboardSample[] {
  const out: StoryboardSample[] = [];
  for (const file of yamlFiles(complianceDir)) {
    const doc = parse(readFileSync(file, 'utf8')) as unknown;
    const rel = relative(complianceDir, file).split('\\').join('/');
    visitSteps(doc, (step, where) => {
      if (typeof step.task !== 'string' || !('sample_request' in step)) return;
      out.push({
        id: `${rel}#${where}`,
        task: step.task,
        request: fillPlaceholders(step.sample_request),
        expectError: step.expect_error !== undefined && step.expect_error !== false,
      });
    });
  }
  return out;
}

function yamlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...yamlFiles(full));
    else if (name.endsWith('.yaml') || name.endsWith('.yml')) out.push(full);
  }
  return out;
}

function visitSteps(doc: unknown, visit: (step: Record<string, unknown>, where: string) => void): void {
  if (doc === null || typeof doc !== 'object') return;
  const phases = (doc as Record<string, unknown>).phases;
  if (!Array.isArray(phases)) return;
  phases.forEach((phase, pi) => {
    if (phase === null || typeof phase !== 'object') return;
    const p = phase as Record<string, unknown>;
    const steps = p.steps;
    if (!Array.isArray(steps)) return;
    steps.forEach((step, si) => {
      if (step === null || typeof step !== 'object') return;
      const s = step as Record<string, unknown>;
      visit(s, `${String(p.id ?? pi)}/${String(s.id ?? si)}`);
    });
  });
}

export function fillPlaceholders(value: unknown): unknown {
  if (typeof value === 'string') return fillString(value);
  if (Array.isArray(value)) return value.map(fillPlaceholders);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      Object.defineProperty(out, k, { value: fillPlaceholders(v), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}

function fillString(s: string): string {
  const gen = /^\$generate:uuid_v4(?:#(.*))?$/.exec(s);
  if (gen) return uuidFromSeed(gen[1] ?? '');
  const ctx = /^\$context\.([A-Za-z0-9_.]*)$/.exec(s);
  if (ctx) return `ctx_${ctx[1] || 'value'}`;
  return s.replace(/\{\{runner\.webhook_url:([^}]*)\}\}/g, (_m, id: string) => `https://runner.example/webhooks/${encodeURIComponent(id)}`)
    .replace(/\{\{runner\.webhook_base\}\}/g, 'https://runner.example/webhooks');
}

function uuidFromSeed(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
