// A live `reasonforge serve` on a free loopback port with a temporary REASONFORGE_HOME and its own key.

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The `reasonforge` CLI: $REASONFORGE_CLI, else the repository's .venv, else PATH. */
export function reasonforgeCli() {
  if (process.env.REASONFORGE_CLI) return process.env.REASONFORGE_CLI;
  const venv = path.resolve(here, '..', '..', '.venv', 'bin', 'reasonforge');
  return existsSync(venv) ? venv : 'reasonforge';
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function cleanEnv(extra) {
  // A developer's own REASONFORGE_* settings must not leak into the test server.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('REASONFORGE_')));
  return { ...env, PYTHONUNBUFFERED: '1', REASONFORGE_BUILD_KEYS_AT_START: 'false', ...extra };
}

async function healthy(baseUrl) {
  try {
    const response = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(2000) });
    return response.status === 200;
  } catch {
    return false;
  }
}

/** Start the service; resolves to {baseUrl, home, env, createKey(name, ...args), stop()}. */
export async function startService({ env = {}, timeoutMs = 60_000 } = {}) {
  const cli = reasonforgeCli();
  const home = mkdtempSync(path.join(tmpdir(), 'rf-sdk-ts-'));
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const fullEnv = cleanEnv({ REASONFORGE_HOME: home, REASONFORGE_PUBLIC_BASE_URL: baseUrl, ...env });
  const logPath = path.join(home, 'serve.log');
  const log = openSync(logPath, 'a');
  const child = spawn(cli, ['serve', '--host', '127.0.0.1', '--port', String(port)], {
    env: fullEnv,
    stdio: ['ignore', log, log],
  });
  let exited = null;
  child.once('exit', (code) => {
    exited = code ?? -1;
  });
  child.once('error', (err) => {
    exited = `${err.message} (set REASONFORGE_CLI to the reasonforge executable)`;
  });
  const tail = () => readFileSync(logPath, 'utf8').slice(-3000);
  const stop = async () => {
    if (exited === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => {
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          resolve();
        }, 15_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    rmSync(home, { recursive: true, force: true });
  };
  const deadline = Date.now() + timeoutMs;
  while (!(await healthy(baseUrl))) {
    if (exited !== null || Date.now() > deadline) {
      const why = exited !== null ? `exited (${exited})` : `not healthy after ${timeoutMs} ms`;
      const text = tail();
      await stop();
      throw new Error(`reasonforge serve ${why}:\n${text}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const createKey = (name, ...args) => {
    const done = spawnSync(cli, ['keys', 'create', '--name', name, ...args], { env: fullEnv, encoding: 'utf8' });
    const key = /\brf_[A-Za-z0-9_-]+/.exec(done.stdout ?? '');
    if (done.status !== 0 || key === null) {
      throw new Error(`reasonforge keys create --name ${name} failed (${done.status}):\n${done.stdout}${done.stderr}`);
    }
    return key[0];
  };
  return { baseUrl, home, env: fullEnv, createKey, stop, log: tail };
}
