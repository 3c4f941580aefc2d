// `pctl serve`'s HTTP/2 and webhook flags, through the built CLI as a user runs it: bad values
// are usage errors (exit 2) naming the flag; --http2-timeouts reaches the server (an idle
// HTTP/2 connection gets its GOAWAY after the idle deadline given on the command line).
import test, { type ExecutionContext } from 'ava';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { frame, GOAWAY, NO_ERROR, PREFACE, SETTINGS } from './helpers/raw-h2.js';
import net from 'node:net';
import { tempDir } from './helpers/serve.js';

const PCTL = fileURLToPath(new URL('../bin/pctl.js', import.meta.url));
const env = () => ({ ...process.env, PCTL_CONFIG_DIR: tempDir(), NO_COLOR: '1' });

for (const [flag, value] of [['--http2-timeouts', 'idle=soon'], ['--http2-timeouts', 'lunch=1s'], ['--http2', 'nghttp3']] as const) {
  test(`serve ${flag} ${value}: a usage error naming ${flag.slice(2)}, exit 2`, (t) => {
    const r = spawnSync(process.execPath, [PCTL, 'serve', '--port', '0', '--data', tempDir(), flag, value], { env: env(), encoding: 'utf8', timeout: 60_000 });
    t.is(r.status, 2, r.stderr);
    t.regex(r.stderr, new RegExp(flag.slice(2)));
  });
}

async function serve(t: ExecutionContext, args: string[]): Promise<number> {
  const child = spawn(process.execPath, [PCTL, 'serve', '--port', '0', '--data', tempDir(), ...args], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => void child.kill('SIGKILL'));
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
  });
}

test('serve --http2-timeouts idle=300ms: an idle HTTP/2 connection gets GOAWAY NO_ERROR and is closed', async (t) => {
  const port = await serve(t, ['--http2-timeouts', 'idle=300ms,preface=5s']);
  const socket = net.connect(port, '127.0.0.1');
  t.teardown(() => void socket.destroy());
  let received = Buffer.alloc(0);
  socket.on('data', (c: Buffer) => (received = Buffer.concat([received, c])));
  socket.write(Buffer.concat([Buffer.from(PREFACE, 'latin1'), frame(SETTINGS, 0, 0)]));
  await new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const types: number[] = [];
  let goawayCode = -1;
  for (let p = 0; p + 9 <= received.length;) {
    const length = received.readUIntBE(p, 3);
    types.push(received[p + 3]!);
    if (received[p + 3] === GOAWAY) goawayCode = received.readUInt32BE(p + 13);
    p += 9 + length;
  }
  t.true(types.includes(GOAWAY), `frames: ${types.join(',')}`);
  t.is(goawayCode, NO_ERROR);
});
