import { createRequire } from 'node:module';

/**
 * `require` from the directory holding the generated set (the agent's repository), never from inside it: a set is
 * committed and reviewed as generated output, and a `node_modules` planted in it must not decide what runs (issue
 * 20). In the set's bundle every runtime module's `import.meta.url` is the set's `index.js`, so `../` is that
 * directory. Its own module, outside the protocol services' artifact: the call path resolves the optional packages
 * it observes through (pino, @opentelemetry/api) with it too.
 */
// Not named `require`: the bundle runs this module as a CommonJS function whose parameter has that name.
let resolver: NodeRequire | undefined;

export function agentRequire(): NodeRequire {
  return (resolver ??= createRequire(new URL('../', import.meta.url)));
}
