import { closeSync, constants, fstatSync, lstatSync, openSync, readlinkSync, readSync, statSync, type Stats } from 'node:fs';
import { CodegenError } from './errors.js';

/**
 * Every file the generator reads as input (config, profiles, rule and overlay files, a release's manifest and
 * schemas, the embedded @adcp/sdk release, whatever a glob matched) is read here, and only if it is a regular file
 * of bounded size. A named pipe would block the run forever, a link to /dev/zero would grow it until the machine
 * gives out, and a loop, a dangling link or a file the user may not read would end it with a stack trace; each is
 * instead a CodegenError naming the file, raised before anything is read from it.
 *
 * Symbolic links are followed wherever they lead (a release assembled from links, a pnpm store): what counts is
 * the file at the end, which must be a regular file. Its type is checked before it is opened (opening a device can
 * have effects of its own) and again on the descriptor, which is opened non-blocking, so a pipe put there in
 * between cannot block either.
 */

/** The size cap of one input file, in MiB: the largest real AdCP schema file is about 4 MB (3.2's bundled/). */
export const MAX_INPUT_FILE_MB = 64;
/** Environment variable that overrides the cap (a whole number of MiB). */
export const MAX_INPUT_FILE_ENV = 'ADCP_CODEGEN_MAX_INPUT_MB';

export function maxInputFileBytes(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[MAX_INPUT_FILE_ENV];
  const mb = raw !== undefined && /^[1-9]\d{0,5}$/.test(raw.trim()) ? Number(raw.trim()) : MAX_INPUT_FILE_MB;
  return mb * 1024 * 1024;
}

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** The bytes of an input file, or a CodegenError naming `display`. */
export function readInputFile(path: string, display: string = path): Buffer {
  const max = maxInputFileBytes();
  let st: Stats;
  try {
    st = statSync(path);
  } catch (e) {
    throw inputFileError(path, display, e);
  }
  checkRegular(st, path, display, max);
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (e) {
    throw inputFileError(path, display, e);
  }
  try {
    const opened = fstatSync(fd);
    checkRegular(opened, path, display, max);
    return readAll(fd, opened.size, max, display);
  } catch (e) {
    throw e instanceof CodegenError ? e : inputFileError(path, display, e);
  } finally {
    closeSync(fd);
  }
}

/** The text of an input file (UTF-8), or a CodegenError naming `display`. */
export function readInputText(path: string, display: string = path): string {
  return readInputFile(path, display).toString('utf8');
}

function checkRegular(st: Stats, path: string, display: string, max: number): void {
  if (!st.isFile()) throw new CodegenError(display, '', `is ${fileKind(st)}${linkNote(path)}, not a regular file: only regular files are read as input`);
  if (st.size > max) throw tooLarge(display, max);
}

/** Reads to the end, never past the cap (a file may grow while it is read). */
function readAll(fd: number, size: number, max: number, display: string): Buffer {
  let buffer = Buffer.allocUnsafe(Math.min(size, max) + 1);
  let used = 0;
  for (;;) {
    if (used === buffer.length) {
      const bigger = Buffer.allocUnsafe(Math.min(buffer.length * 2, max + 1));
      buffer.copy(bigger, 0, 0, used);
      buffer = bigger;
    }
    const n = readSync(fd, buffer, used, buffer.length - used, null);
    if (n === 0) return buffer.subarray(0, used);
    used += n;
    if (used > max) throw tooLarge(display, max);
  }
}

function tooLarge(display: string, max: number): CodegenError {
  return new CodegenError(display, '', `is larger than ${max / 1024 / 1024} MiB, the cap on one input file (${MAX_INPUT_FILE_ENV} raises it)`);
}

/** What a file system error says about `path`, in words: a dangling link is named as one, not as a missing file. */
export function inputFileError(path: string, display: string, e: unknown): CodegenError {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT': {
      const target = linkTarget(path);
      return new CodegenError(display, '', target !== undefined ? `is a dangling symbolic link (to ${JSON.stringify(target)}, which does not exist)` : 'file not found');
    }
    case 'ELOOP':
      return new CodegenError(display, '', 'is a symbolic link loop (too many levels of symbolic links)');
    case 'EACCES':
    case 'EPERM':
      return new CodegenError(display, '', 'cannot be read: permission denied');
    case 'EISDIR':
      return new CodegenError(display, '', 'is a directory, not a regular file');
    case 'ENOTDIR':
      return new CodegenError(display, '', 'file not found (a part of its path is not a directory)');
    case 'ENAMETOOLONG':
      return new CodegenError(display, '', 'cannot be read: its path is too long');
    default:
      return new CodegenError(display, '', `cannot be read (${code ?? (e instanceof Error ? e.message : String(e))})`);
  }
}

/** `a named pipe (FIFO)`, `a character device`, …: a file type in words. */
export function fileKind(st: Stats): string {
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  if (st.isDirectory()) return 'a directory';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/** ` (a symbolic link to "/dev/zero")` when `path` itself is a link, else ''. */
function linkNote(path: string): string {
  const target = linkTarget(path);
  return target === undefined ? '' : ` (through the symbolic link to ${JSON.stringify(target)})`;
}

function linkTarget(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
  } catch {
    return undefined;
  }
}
