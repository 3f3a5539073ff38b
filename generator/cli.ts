import { parseArgs } from 'node:util';
import { CodegenError, UsageError, createLogger, generatorVersion } from './shared/index.js';
import { generateWithHeapBudget, heapBudgetMb } from './generate-worker.js';

export const USAGE = `Usage: adcp-codegen generate [options]
       adcp-codegen --version

Reads AdCP releases and capability profiles, writes the generated set (validators, strip functions, normalizers,
projected tools/list schemas, MCP registrations) for each profile.

Options:
  --config F     config file (default: ./adcp-codegen.config.json)
  --release DIR  AdCP release directory, or "@adcp/sdk" for the one embedded there (repeatable; replaces the config's)
  --profile F    capability profile file or glob (repeatable; replaces the config's)
  --out DIR      output directory (default: the config's "out", else ./generated)
  --check        compare the output with what would be generated; change nothing; exit 1 on drift
  --adopt        write into an existing, non-empty DIR that holds no adcp-codegen manifest (its other files are
                 left as they are); without it such a directory is refused
  --strict       treat warnings about the inputs as errors (x-adcp-applies-when lint, capability keys the
                 release does not define)
  --verbose      also list each shipped normalization rule not emitted and each compile unit's time
  -h, --help     show this help
  -v, --version  print adcp-codegen's version (${generatorVersion}) and exit

Environment:
  ADCP_CODEGEN_HEAP_MB  heap budget of the generation worker in MB (default 256; 0: none, run on the main thread);
                        a generation that outgrows it runs again without one

Exit status: 0 ok, 1 generation error or drift found by --check, 2 usage error.
`;

/** Runs the CLI; returns the exit code instead of exiting so tests can drive it in-process. */
export async function main(argv: readonly string[], stderr: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr, stdout: NodeJS.WritableStream = process.stdout): Promise<number> {
  let log = createLogger(stderr);
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        config: { type: 'string' },
        release: { type: 'string', multiple: true },
        profile: { type: 'string', multiple: true },
        out: { type: 'string' },
        check: { type: 'boolean' },
        adopt: { type: 'boolean' },
        strict: { type: 'boolean' },
        verbose: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (e) {
    log.error((e as Error).message);
    stderr.write(USAGE);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.verbose === true) log = createLogger(stderr, process.env, true);
  if (values.help === true) {
    stdout.write(USAGE);
    return 0;
  }
  // The version alone on stdout, as node, npm and tsc print theirs: a script can read it as it is.
  if (values.version === true) {
    stdout.write(`${generatorVersion}\n`);
    return 0;
  }
  if (positionals.length !== 1 || positionals[0] !== 'generate') {
    log.error(positionals.length === 0 ? 'missing command' : `unknown command ${JSON.stringify(positionals.join(' '))}`);
    stderr.write(USAGE);
    return 2;
  }
  try {
    const result = await generateWithHeapBudget(
      { config: values.config, releases: values.release, profiles: values.profile, out: values.out, strict: values.strict, check: values.check, adopt: values.adopt },
      log,
      heapBudgetMb(),
    );
    if (values.check === true && result.drift.length > 0) {
      log.error(`generated output is out of step with its inputs (run \`npm run generate\`), or holds files it does not own that Node could load (remove them):\n  ${result.drift.join('\n  ')}`);
      return 1;
    }
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      log.error(e.message);
      stderr.write(USAGE);
      return 2;
    }
    if (e instanceof CodegenError) {
      log.error(e.message);
      return 1;
    }
    log.error((e as Error).stack ?? String(e));
    return 1;
  }
}
