// The simple commands, answered before the CLI loads: `pctl --version`, `pctl version` with
// no API to ask, `pctl`, `pctl --help` (stdout not a terminal: the text is commander's at 80
// columns, rendered from the command declarations when the bundle is built) and `pctl config
// list`. Every command costs Node's start plus what it loads, and commander with the command
// tree (and ES modules, and a stdout stream) is most of a simple command's time. Anything
// else, or anything that could make these print something else (a flag, PCTL_* set, a
// profile to ask the server of), returns undefined: the full CLI answers.
//
// scripts/bundle.mjs builds this alone, as CommonJS (dist/bundle/fast.cjs), and puts the
// root help in PCTL_ROOT_HELP; bin/pctl.js calls runFast before anything else.
import { readFileSync } from 'node:fs';
import { isatty } from 'node:tty';
import { readConfigFile } from '../config/file.js';
import { stdoutFd, type FdStream } from '../output/fd-stream.js';
import { run as listProfiles } from './commands/config/list.js';
import { createContext, type Env, type IO } from './context.js';

/** The root help at 80 columns, rendered by scripts/bundle.mjs (undefined outside the bundle). */
declare const PCTL_ROOT_HELP: string | undefined;

/** What a fast command does: its exit code, once its output is written. */
type Answer = (out: FdStream, env: Env) => Promise<number> | number;

/** The answer for this command line, or undefined when the full CLI must answer it. */
function fastCommand(argv: readonly string[], env: Env, packageDir: string): Answer | undefined {
  const line = argv.join(' ');
  if (line === '--version' || line === '-V') return (out) => print(out, `${packageVersion(packageDir)}\n`);
  if (line === 'version' && !apiConfigured(env)) return (out) => print(out, `Client: pctl ${packageVersion(packageDir)} (Node ${process.version})\n`);
  const rootHelp = typeof PCTL_ROOT_HELP === 'string' ? PCTL_ROOT_HELP : undefined;
  if ((line === '' || line === '--help' || line === '-h') && rootHelp !== undefined && !isatty(1)) return (out) => print(out, rootHelp);
  if ((line === 'config list' || line === 'config ls') && readable(env)) return configList;
  return undefined;
}

function print(out: FdStream, text: string): number {
  out.write(text);
  return 0;
}

/**
 * Whether `pctl version` would ask a server (or fail): an API URL, token or profile in the
 * environment (set, even empty), or a current profile. An unreadable config file counts too:
 * the full CLI says what is wrong with it.
 */
function apiConfigured(env: Env): boolean {
  if (env.PCTL_API_URL !== undefined || env.PCTL_TOKEN !== undefined || env.PCTL_PROFILE !== undefined) return true;
  return !readable(env) || Boolean(readConfigFile(env.PCTL_CONFIG_DIR).currentProfile);
}

/** Whether the profiles can be read; where not, the full CLI says why (and exits 1). */
function readable(env: Env): boolean {
  try {
    readConfigFile(env.PCTL_CONFIG_DIR);
    return true;
  } catch {
    return false;
  }
}

async function configList(out: FdStream, env: Env): Promise<number> {
  return listProfiles(createContext({ io: fastIO(out), env, argv: ['config', 'list'] }));
}

/** The process's streams without process.stdout (its width is read only on a terminal). */
function fastIO(out: FdStream): IO {
  const stdoutIsTTY = isatty(1);
  return {
    stdout: out,
    get stderr() {
      return process.stderr;
    },
    get stdin() {
      return process.stdin;
    },
    stdoutIsTTY,
    stderrIsTTY: isatty(2),
    stdinIsTTY: isatty(0),
    get columns() {
      return (stdoutIsTTY && process.stdout.columns) || Number(process.env.COLUMNS) || 80;
    },
  };
}

/** package.json's version, as main.ts reads it for commander. */
function packageVersion(packageDir: string): string {
  try {
    return (JSON.parse(readFileSync(`${packageDir}/package.json`, 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

/** Runs the fast command for argv, if there is one: its exit code once stdout is flushed; undefined otherwise. */
export async function runFast(argv: readonly string[], packageDir: string): Promise<number | undefined> {
  const answer = fastCommand(argv, process.env, packageDir);
  if (!answer) return undefined;
  const out = stdoutFd(() => process.stdout);
  const code = await answer(out, process.env);
  return new Promise((resolve) => out.flush(() => resolve(code)));
}
