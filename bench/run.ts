// `npm run bench`: boots the whole service (embedded PostgreSQL, temp DATA_DIR, loopback port), runs the
// sections, and prints one table. Everything started here is stopped at the end, also on failure or Ctrl-C.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { inspect } from 'node:util';
import { startTestApp, type TestApp } from '../test/helpers/test-app.js';
import { authSection, canvasSection, type ApiContext } from './api.js';
import { generationSection } from './generation.js';
import { regionsSection } from './regions.js';
import { runsSection } from './runs.js';
import { starvationSection } from './starvation.js';
import { storageSection } from './storage.js';
import { uploadSection } from './uploads.js';
import { LoadClient } from './load.js';
import { formatTable, type Row, type Section } from './table.js';

const allSections: Array<[string, Section<ApiContext>]> = [
  ['session guard', authSection],
  ['canvas', canvasSection],
  ['storage', storageSection],
  ['uploads', uploadSection],
  ['generation', generationSection],
  ['starvation', starvationSection],
  ['runs', runsSection],
  ['regions', regionsSection],
];
// BENCH_SECTIONS=uploads,canvas runs only those sections (names as above, comma-separated).
const only = process.env.BENCH_SECTIONS?.split(',').map((s) => s.trim()).filter(Boolean);
const unknown = only?.filter((name) => !allSections.some(([n]) => n === name)) ?? [];
if (unknown.length > 0) throw new Error(`BENCH_SECTIONS: unknown section(s) ${unknown.join(', ')}; known: ${allSections.map(([n]) => n).join(', ')}`);
const sections = only ? allSections.filter(([name]) => only.includes(name)) : allSections;
// BENCH_PIN=1 (Linux, ≥ 2 CPUs, `taskset`): this process — the service, the direct baselines and the PostgreSQL it
// starts — on CPU 0, the load client on CPU 1, so the client never takes the service's core (as a remote client).
const pin = process.env.BENCH_PIN === '1';
const pinTo = (cpu: number, pid: number) => execFileSync('taskset', ['--all-tasks', '--pid', '--cpu-list', String(cpu), String(pid)], { stdio: 'ignore' });

function machineInfo(): string[] {
  const cpus = os.cpus();
  return [
    `Node ${process.version} on ${os.platform()} ${os.release()} (${os.arch()}), ${cpus.length} CPU × ${cpus[0]?.model.trim() ?? 'unknown'}, ` +
      `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} at start.`,
    'Client (load loop), server (Fastify) and PostgreSQL all share these cores over loopback: absolute numbers are lower than on separate machines; the ratios are the point.',
  ];
}

async function main(): Promise<number> {
  const wallStart = Date.now();
  console.log('# Image Canvas benchmark\n');
  for (const line of machineInfo()) console.log(line);

  let t: TestApp | undefined;
  let load: LoadClient | undefined;
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await load?.close();
      await t?.close();
    })());
  const onSignal = (signal: NodeJS.Signals) => {
    console.error(`\n${signal}: stopping the service…`);
    void close().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const rows: Row[] = [];
  const notes: string[] = [];
  let failure: unknown;
  try {
    if (pin) pinTo(0, process.pid); // before PostgreSQL starts: it inherits the CPU
    t = await startTestApp({ RATE_LIMIT_UPLOADS_PER_MINUTE: '0' }, 'embedded');
    load = new LoadClient();
    if (pin) {
      pinTo(1, load.pid!);
      console.log('BENCH_PIN: the service, the direct baselines and PostgreSQL run on CPU 0; the load client on CPU 1.');
    }
    const { rows: pgVersion } = await t.pool.query<{ v: string }>("SELECT current_setting('server_version') AS v");
    console.log(`PostgreSQL ${pgVersion[0].v} (embedded, started by the service); service at ${t.baseUrl}.\n`);
    for (const [name, section] of sections) {
      const started = Date.now();
      process.stderr.write(`running ${name}… `);
      await section({ t, load, notes }, rows);
      process.stderr.write(`${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    }
  } catch (err) {
    failure = err;
  } finally {
    await close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }

  if (rows.length > 0) console.log(formatTable(rows));
  console.log('\nratio = req/s of the row ÷ req/s of its baseline row, both measured in this run; latencies are per request, end to end at the client.');
  for (const note of notes) console.log(note);
  console.log(`Wall time ${((Date.now() - wallStart) / 1000).toFixed(1)} s; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} at the end (above ${os.cpus().length} means other work competed for the cores).`);
  if (failure) {
    console.error(`\nBENCHMARK FAILED: ${failure instanceof Error ? (failure.stack ?? failure.message) : inspect(failure)}`);
    return 1;
  }
  return 0;
}

process.exitCode = await main();
