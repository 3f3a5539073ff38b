import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generate } from '../generator/index.js';
import { createLogger } from '../generator/shared/index.js';
import { runCli } from './helpers/cli.js';
import { tempDir, tinyRelease, writeTree } from './helpers/fixture-release.js';

/**
 * Deprecations at build time (issue 40 point 6): a tool a served release's manifest marks `deprecated_in` (AdCP 3.2
 * marks get_products, create_media_buy, update_media_buy and list_creative_formats so, superseded by the compact
 * lifecycle) is named once per tool and release, with the release that deprecates it and its replacements, and the
 * profiles that serve it: a note on stderr, never a failure, --strict included, and said again by a run that finds
 * nothing changed.
 */
const manifestOf = (dir: string): { adcp_version: string; tools: Record<string, Record<string, unknown>> } =>
  JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
const base = manifestOf(tinyRelease({}, '9.2.0'));
const deprecating = tinyRelease(
  {
    'manifest.json': {
      ...base,
      tools: {
        ...base.tools,
        get_things: { ...base.tools.get_things, deprecated_in: '9.2.0', superseded_by: ['list_things', 'browse_things'] },
        make_thing: { ...base.tools.make_thing, deprecated_in: '9.2.0' },
      },
    },
  },
  '9.2.0',
);
const older = tinyRelease({}, '9.1.0');
const capabilities = { adcp: { major_versions: [9] }, supported_protocols: ['media_buy'] };
const work = writeTree(
  {
    'profiles/seller.json': { name: 'seller', tools: ['get_adcp_capabilities', 'get_things', 'make_thing'], capabilities },
    'profiles/reader.json': { name: 'reader', tools: ['get_adcp_capabilities', 'get_things'], capabilities },
    'profiles/old-only.json': { name: 'old-only', tools: ['get_adcp_capabilities', 'get_things'], capabilities, releases: ['9.1'] },
    'adcp-codegen.config.json': { releases: [older, deprecating], profiles: ['profiles/*.json'], out: 'generated' },
  },
  tempDir('adcp-codegen-deprecations-'),
);

const EXPECTED = [
  'note get_things: deprecated in AdCP 9.2.0 (the 9.2.0 manifest), superseded by list_things, browse_things; served by profiles reader, seller (AdCP keeps it through 9.x)',
  'note make_thing: deprecated in AdCP 9.2.0 (the 9.2.0 manifest), no replacement named; served by profile seller (AdCP keeps it through 9.x)',
];
const notes = (stderr: string): string[] => stderr.split('\n').filter((l) => l.startsWith('note '));

test('generate names each served deprecated tool once per release, with its replacements and profiles, and exits 0', async () => {
  const run = await runCli(['generate'], work);
  assert.is(run.code, 0, run.stderr);
  // One line per tool and release, not per profile; the 9.1-only profile and 9.1 itself deprecate nothing.
  assert.equal(notes(run.stderr), EXPECTED);
  assert.not.match(run.stderr, /warning|error/);
});

test('a run that finds nothing changed says the same notes; --check and --strict too, and neither fails on them', async () => {
  const again = await runCli(['generate'], work);
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stderr, /up to date: nothing changed/);
  assert.equal(notes(again.stderr), EXPECTED);
  for (const flags of [['--check'], ['--strict']]) {
    const run = await runCli(['generate', ...flags], work);
    assert.is(run.code, 0, `${flags.join(' ')}: ${run.stderr}`);
    assert.equal(notes(run.stderr), EXPECTED, flags.join(' '));
  }
});

test('generate() returns the notes; the worker the CLI runs in forwards them', async () => {
  const previous = process.cwd();
  process.chdir(work);
  try {
    const result = await generate({ reuse: false, logger: createLogger(new Writable({ write: (_c, _e, cb) => cb() })) });
    assert.equal(result.notes, EXPECTED.map((l) => l.slice('note '.length)));
    assert.equal(result.warnings, []);
  } finally {
    process.chdir(previous);
  }
  const inWorker = await runCli(['generate', '--check'], work, '256');
  assert.is(inWorker.code, 0, inWorker.stderr);
  assert.equal(notes(inWorker.stderr), EXPECTED);
});

test('a note is coloured only on a terminal, never with NO_COLOR', () => {
  const capture = (isTTY: boolean, env: NodeJS.ProcessEnv): string => {
    let text = '';
    const stream = Object.assign(new Writable({ write: (c, _e, cb) => ((text += String(c)), cb()) }), { isTTY });
    createLogger(stream, env).note('get_things: deprecated');
    return text;
  };
  assert.is(capture(true, {}), '\u001b[35mnote\u001b[0m get_things: deprecated\n');
  assert.is(capture(true, { NO_COLOR: '1' }), 'note get_things: deprecated\n');
  assert.is(capture(false, {}), 'note get_things: deprecated\n');
});

test.run();
