// Starts an in-memory Azurite blob service as a child process on a free loopback port.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

// Azurite's fixed, publicly documented development account key (not a secret).
const DEV_ACCOUNT = 'devstoreaccount1';
const DEV_KEY =
  'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

export interface AzuriteHandle {
  connectionString: string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

export interface AzuriteOptions {
  timeoutMs?: number;
  /** A fixed port (to restart on the same address). */
  port?: number;
  /** Keep data in this folder (survives a restart; the caller removes it) instead of in memory. */
  location?: string;
}

export async function startAzurite(opts: AzuriteOptions = {}): Promise<AzuriteHandle> {
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const port = opts.port ?? (await freePort());
  // Azurite runs in an empty temp folder so nothing it might write lands in the project.
  const cwd = await mkdtemp(join(tmpdir(), 'azurite-'));
  const bin = resolve('node_modules/.bin/azurite-blob');
  const args = [
    '--blobHost', '127.0.0.1', '--blobPort', String(port),
    ...(opts.location ? ['--location', opts.location] : ['--inMemoryPersistence']),
    '--silent', '--disableTelemetry', '--skipApiVersionCheck',
  ];
  const child = spawn(process.execPath, [bin, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = once(child, 'exit');
  let output = '';

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      // Azurite closes its server on SIGTERM but may keep the process alive; insist after a grace period.
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    }
    await rm(cwd, { recursive: true, force: true });
  };

  try {
    await new Promise<void>((ready, fail) => {
      const timer = setTimeout(() => fail(new Error(`Azurite did not start in ${timeoutMs} ms: ${output}`)), timeoutMs);
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (/successfully listens on/.test(output)) {
          clearTimeout(timer);
          ready();
        }
      });
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', (code) => {
        clearTimeout(timer);
        fail(new Error(`Azurite exited with code ${code}: ${output}`));
      });
    });
  } catch (err) {
    await stop();
    throw err;
  }

  const connectionString =
    `DefaultEndpointsProtocol=http;AccountName=${DEV_ACCOUNT};AccountKey=${DEV_KEY};` +
    `BlobEndpoint=http://127.0.0.1:${port}/${DEV_ACCOUNT};`;
  return { connectionString, stop };
}
