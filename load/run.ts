// `npm run load`: how many simulated editors one instance holds with p99 < 100 ms. This file is the default
// mode (LOAD_MODE=rest): editors saving the whole canvas over REST. LOAD_MODE=live (`npm run load:live`) runs
// editors on the live document over WebSockets instead: see live-run.ts.
//
// Boots the whole service on PostgreSQL (startTestApp: embedded server, temp DATA_DIR, loopback port), signs
// editors in through the real OAuth flow, and runs a series of steps with more and more editors, each saving a
// 200-node canvas once a second (editors.ts, in a child process of its own). The series stops at the first
// step that misses p99 < 100 ms or has errors or lost saves. Everything started here is stopped at the end,
// on failure, on Ctrl-C, and when the wall-time cap is reached.
//
// Settings (environment): LOAD_SECONDS (per step, default 60), LOAD_STEPS (default 25,50,100,250,500,750,1000,1250,1500,2000),
// LOAD_WARMUP_SECONDS (default 10, not reported), LOAD_REFINE (steps that bisect between the last passing and
// the first failing step, default 2), LOAD_MAX_MINUTES (wall-time cap, default 15), LOAD_EDITORS_PER_USER
// (default 1: every editor is its own user), LOAD_SIGNIN_CONCURRENCY (default 16), LOAD_P99_MS (default 100),
// LOAD_DATABASE_POOL_SIZE (passed to the service as DATABASE_POOL_SIZE; unset = the service default),
// LOAD_PROFILE=1 (a CPU profile of the service's thread per step, summarised under the table; =heap / =alloc: its heap, ./profile.ts),
// LOAD_QUIET_CORES / LOAD_QUIET_WAIT_SECONDS (before each step, wait up to 60 s for other work on the machine
// to use less than 0.25 cores; the step runs anyway after that, and the tables show what competed),
// LOAD_BUSY_RERUNS (default 1: a step that fails while other work used ≥ LOAD_QUIET_CORES is run again),
// LOAD_V8_FLAGS (V8 flags for the service's process, on top of src/gc.ts's; e.g. --trace-gc).
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import { inspect } from 'node:util';
import { tuneGarbageCollector } from '../src/gc.js';
import { startTestApp, type TestApp } from '../test/helpers/test-app.js';
import { CapReached, envNumber, envSteps, LoadProcess, startCap, startWindow, waitForQuiet, type Watchers } from './harness.js';
import type { EditorSpec, FromClient, StepRequest, StepResult, ToClient } from './protocol.js';
import { resourcesTable, resultsTable, type Measured, type StepResources } from './report.js';
import { PgWatch } from './postgres.js';
import { loadAverage, machineInfo, parentPid, processCpu, treeCpu } from './resources.js';

// The service's garbage-collector settings, as src/server.ts sets them; LOAD_V8_FLAGS adds V8 flags for this process
// (the service's), e.g. to try another setting (`--allocation-site-pretenuring` undoes one of ours).
tuneGarbageCollector();
for (const flag of (process.env.LOAD_V8_FLAGS ?? '').split(/\s+/).filter(Boolean)) v8.setFlagsFromString(flag);

// ---------------------------------------------------------------------------------------------------------
// Settings

const settings = {
  seconds: Math.round(envNumber('LOAD_SECONDS', 60, 1)),
  steps: envSteps([25, 50, 100, 250, 500, 750, 1000, 1250, 1500, 2000]),
  warmupSeconds: Math.round(envNumber('LOAD_WARMUP_SECONDS', 10, 0)),
  refine: Math.round(envNumber('LOAD_REFINE', 2, 0)),
  capMs: envNumber('LOAD_MAX_MINUTES', 15, 1) * 60_000,
  editorsPerUser: Math.round(envNumber('LOAD_EDITORS_PER_USER', 1, 1)),
  signInConcurrency: Math.round(envNumber('LOAD_SIGNIN_CONCURRENCY', 16, 1)),
  p99LimitMs: envNumber('LOAD_P99_MS', 100, 1),
  quietCores: envNumber('LOAD_QUIET_CORES', 0.25, 0),
  quietWaitMs: envNumber('LOAD_QUIET_WAIT_SECONDS', 60, 0) * 1000,
  busyReruns: Math.round(envNumber('LOAD_BUSY_RERUNS', 1, 0)),
  profile: ['1', 'heap', 'alloc'].includes(process.env.LOAD_PROFILE ?? ''),
  poolSize: process.env.LOAD_DATABASE_POOL_SIZE ? String(Math.round(envNumber('LOAD_DATABASE_POOL_SIZE', 10, 1))) : undefined,
};

/** Saves still in flight when a step ends get this long before they count as errors (requests time out at 10 s). */
const DRAIN_MS = 15_000;
const VERIFY_CONCURRENCY = 16;
const GOAL_EDITORS = 1_000;

type RestClient = LoadProcess<ToClient, FromClient>;

// ---------------------------------------------------------------------------------------------------------
// Editors: users signed in through the real OAuth flow, each with its own project(s)

interface SignedIn {
  id: string;
  cookie: string;
  client: Awaited<ReturnType<TestApp['user']>>['client'];
}

class Editors {
  readonly specs: EditorSpec[] = [];
  private readonly users: SignedIn[] = [];
  signInMs = 0;
  signedIn = 0;

  constructor(
    private readonly t: TestApp,
    private readonly load: RestClient,
    private readonly within: <T>(p: Promise<T>) => Promise<T>,
  ) {}

  private async user(u: number): Promise<SignedIn> {
    const started = performance.now();
    const { client, id } = await this.t.user(`load-editor-${u}@example.com`, `Load Editor ${u}`);
    const cookie = await client.jar.getCookieString(`${this.t.baseUrl}/api/user/project/canvas`);
    this.signInMs += performance.now() - started;
    this.signedIn++;
    return { client, id, cookie };
  }

  /** Makes sure `count` editors exist here and in the load client. */
  async ensure(count: number): Promise<void> {
    const from = this.specs.length;
    if (count <= from) return;
    const wall = performance.now();
    const signedInBefore = this.signedIn;
    const added: EditorSpec[] = new Array(count - from);
    // Editor i belongs to user floor(i / editorsPerUser); each user signs in once and creates its projects.
    const firstUser = Math.floor(from / settings.editorsPerUser);
    const lastUser = Math.floor((count - 1) / settings.editorsPerUser);
    let nextUser = firstUser;
    const worker = async () => {
      while (nextUser <= lastUser) {
        const u = nextUser++;
        const user = (this.users[u] ??= await this.user(u));
        for (let i = Math.max(from, u * settings.editorsPerUser); i < Math.min(count, (u + 1) * settings.editorsPerUser); i++) {
          const created = await user.client.post('/api/user/project', { userId: user.id, name: `Load canvas ${i}` });
          if (created.status !== 200) throw new Error(`create project → ${created.status} ${created.text.slice(0, 200)}`);
          added[i - from] = { userId: user.id, projectId: created.json.id, cookie: user.cookie, seed: 7_000 + i };
        }
      }
    };
    await this.within(Promise.all(Array.from({ length: settings.signInConcurrency }, worker)));
    this.specs.push(...added);
    this.load.send({ type: 'add', origin: this.t.baseUrl, editors: added });
    await this.within(this.load.wait('added', 60_000));
    const s = (performance.now() - wall) / 1000;
    process.stderr.write(`  ${added.length} editors ready (${this.signedIn - signedInBefore} more users signed in through OAuth, ${settings.signInConcurrency} at a time) in ${s.toFixed(1)} s\n`);
  }
}

// ---------------------------------------------------------------------------------------------------------
// One step: the load client runs it; here we watch the service, PostgreSQL and the machine meanwhile

async function runStep(
  load: RestClient,
  watch: Watchers,
  step: StepRequest,
  within: <T>(p: Promise<T>) => Promise<T>,
): Promise<{ result: StepResult; resources: StepResources; profile?: string[] }> {
  const stopWindow = await startWindow(watch, () => processCpu(load.pid!));
  const onLoaded = (m: { type: string }) => {
    if (m.type === 'loaded') stopWindow().catch(() => undefined);
  };
  try {
    const answer = load.wait('result', step.durationMs + DRAIN_MS + 180_000, onLoaded);
    load.send({ type: 'step', step });
    const { result } = await within(answer);
    const { resources, profile } = await stopWindow();
    return { result, resources, profile };
  } finally {
    await stopWindow().catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const wallStart = performance.now();
  const elapsedMs = () => performance.now() - wallStart;
  console.log('# Image Canvas load test: editors saving canvases\n');

  let t: TestApp | undefined;
  let load: RestClient | undefined;
  let editors: Editors | undefined;
  let pgWatch: PgWatch | undefined;
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await load?.close().catch(() => undefined);
      await pgWatch?.close();
      await t?.close();
    })());

  const measured: Measured[] = [];
  const header: string[] = [];
  const notes: string[] = [];
  let printed = false;
  const printReport = (ending: string) => {
    if (printed) return;
    printed = true;
    measured.sort((a, b) => a.result.editors - b.result.editors);
    notes.push(
      `Latency is per save, end to end at the client, from the editor's scheduled tick to the last byte of the answer (so client-side delay counts against the service); ` +
        `percentiles are nearest-rank over every acknowledged save of the step. Lost saves: editors whose stored canvas (read back after the step) has a lower version than the last one acknowledged, ` +
        `or the same version with other node positions. ✓ needs p99 < ${settings.p99LimitMs} ms, no errors and no lost saves.`,
    );
    notes.push(
      `Resource columns cover each step's ticks and drain (not the read-back): "server thread busy" is the event-loop utilisation of the service's thread; CPU columns are from /proc ` +
        `(service = its whole process, PostgreSQL = postmaster and backends, other = the rest of the machine, e.g. other test suites and kernel networking); the service's database connections and PostgreSQL's wait events ` +
        `are sampled every 200 ms from PostgreSQL's view ("DB connections busy": in a statement or a transaction). "p99 from send" leaves out the client's own delay in starting a save ("client timer lag").`,
    );
    const first = measured[0]?.result;
    if (first) notes.push(`Save request body ${(first.requestBytes / 1024).toFixed(1)} KB, answer ${(first.responseBytes / 1024).toFixed(1)} KB (the whole canvas back).`);
    if (editors && editors.signedIn > 0) {
      notes.push(`Signed in ${editors.signedIn} users through the OAuth flow (${settings.signInConcurrency} at a time), ${(editors.signInMs / editors.signedIn).toFixed(0)} ms each on average.`);
    }
    for (const line of header) console.log(line);
    console.log('');
    if (measured.length > 0) {
      console.log(resultsTable(measured, settings.p99LimitMs));
      console.log('\nWhere the time went during each step (CPU in cores = CPU seconds per second; the machine has ' + `${os.cpus().length} cores):\n`);
      console.log(resourcesTable(measured));
    } else console.log('(no step was measured)');
    console.log('');
    for (const note of notes) console.log(note);
    console.log(ending);
    console.log(`Wall time ${(elapsedMs() / 1000).toFixed(0)} s; load average ${loadAverage()} at the end.`);
  };

  // The verdict: the largest passing step below the smallest failing one.
  const verdict = (): string => {
    const counted = measured.filter((m) => !m.rerun);
    const failing = counted.filter((m) => !m.pass).map((m) => m.result.editors);
    const limit = failing.length ? Math.min(...failing) : Infinity;
    const held = counted.filter((m) => m.pass && m.result.editors < limit).map((m) => m.result.editors);
    const n = held.length ? Math.max(...held) : 0;
    const goal = n >= GOAL_EDITORS ? `goal ≥ ${GOAL_EDITORS.toLocaleString('en')}: MET` : `goal ≥ ${GOAL_EDITORS.toLocaleString('en')}: NOT MET`;
    if (measured.length === 0) return 'Nothing was measured.';
    if (n === 0) return `One instance holds fewer than ${limit} editors with p99 < ${settings.p99LimitMs} ms (no step passed; ${goal}).`;
    const bound = Number.isFinite(limit) ? ` (${limit} failed)` : ' (the largest step run; the limit was not reached)';
    return `One instance holds ${n} editors with p99 < ${settings.p99LimitMs} ms${bound}; ${goal}.`;
  };

  const onSignal = (signal: NodeJS.Signals) => {
    console.error(`\n${signal}: stopping the load client and the service…`);
    notes.push(`Interrupted by ${signal}: the table shows the steps finished before it.`);
    void close().finally(() => {
      printReport(verdict());
      process.exit(130);
    });
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  // The wall-time cap: every wait below races it.
  const cap = startCap(settings.capMs);
  const within = cap.within;

  let failure: unknown;
  try {
    const env: Record<string, string> = settings.poolSize ? { DATABASE_POOL_SIZE: settings.poolSize } : {};
    t = await within(startTestApp(env, 'embedded'));
    const { rows } = await t.pool.query<{ v: string; pid: number }>("SELECT current_setting('server_version') AS v, pg_backend_pid() AS pid");
    const postmasterPid = parentPid(rows[0].pid);
    if (!postmasterPid) throw new Error('cannot find the PostgreSQL server process');
    pgWatch = await PgWatch.connect(t.databaseUrl);
    load = new LoadProcess<ToClient, FromClient>('./editors.ts');
    await within(load.wait('ready', 60_000));

    header.push(
      machineInfo() + ' at start.',
      `PostgreSQL ${rows[0].v} (embedded, started by the service, postmaster pid ${postmasterPid}); service at ${t.baseUrl} (loopback only), ` +
        `database pool ${t.config.database.poolSize} connections (${settings.poolSize ? 'DATABASE_POOL_SIZE set by LOAD_DATABASE_POOL_SIZE' : 'service default'}), other settings default.`,
      `Load client: a separate Node process (pid ${load.pid}), so it never runs on the service's event loop; client, service and PostgreSQL share the machine's ${os.cpus().length} cores over loopback.`,
      `Editors: each is ${settings.editorsPerUser === 1 ? 'its own user' : `one of ${settings.editorsPerUser} projects of a user`} signed in once through the real OAuth flow, with its own project and keep-alive connection; ` +
        `once a second (random phase) it moves one node of its 200-node / 300-edge canvas and saves the whole canvas with the version it last got back (409 = error). ` +
        `Open loop: a tick that finds the previous save still in flight is skipped ("late").`,
      `Steps of ${settings.seconds} s (${settings.steps.join(', ')})${settings.warmupSeconds ? `, after a ${settings.warmupSeconds} s warm-up that is not reported` : ''}; the series stops at the first step with p99 ≥ ${settings.p99LimitMs} ms, errors or lost saves` +
        (settings.busyReruns ? ` (a step that fails while other work used ≥ ${settings.quietCores} cores is run again, ${settings.busyReruns}×; the rerun counts)` : '') +
        (settings.refine ? `, then ${settings.refine} step(s) bisect between the last passing and the first failing count.` : '.'),
    );
    for (const line of header) process.stderr.write(`${line}\n`);

    editors = new Editors(t, load, within);
    const ed = editors;
    const budgetLeft = (editorsNeeded: number) => {
      // Rough: the step, its drain and read-back, and signing in the new editors (~ 30 ms each at 16 at a time).
      const needMs = settings.seconds * 1000 + 30_000 + Math.max(0, editorsNeeded - ed.specs.length) * 30;
      return settings.capMs - elapsedMs() > needMs;
    };

    const ownCpu = () => {
      const c = process.cpuUsage();
      return (c.user + c.system) / 1e6 + treeCpu(postmasterPid) + processCpu(load!.pid!);
    };
    const step = async (count: number, seconds: number, report: boolean): Promise<Measured> => {
      await ed.ensure(count);
      const quiet = await waitForQuiet(ownCpu, within, settings.quietCores, settings.quietWaitMs);
      const busyNote = quiet.otherCores >= settings.quietCores ? `; other work still used ${quiet.otherCores.toFixed(2)} cores after waiting ${(quiet.waitedMs / 1000).toFixed(0)} s` : '';
      if (settings.capMs - elapsedMs() < seconds * 1000 + 25_000) throw new CapReached(`the ${count}-editor step would not finish within the ${settings.capMs / 60_000}-minute cap`);
      process.stderr.write(`${report ? 'step' : 'warm-up'}: ${count} editors for ${seconds} s${busyNote}…\n`);
      const watch: Watchers = { postmasterPid, pg: pgWatch!, profile: settings.profile && report ? `${count}-editors` : undefined };
      const { result, resources, profile } = await runStep(load!, watch, { editors: count, durationMs: seconds * 1000, drainMs: DRAIN_MS, verifyConcurrency: VERIFY_CONCURRENCY }, within);
      const pass = result.p99Ms < settings.p99LimitMs && result.errors === 0 && result.verifyErrors === 0 && result.lost === 0;
      const m: Measured = { result, resources, pass };
      process.stderr.write(
        `  → ${result.saves} saves (${(result.saves / seconds).toFixed(0)}/s), p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms, max ${result.maxMs.toFixed(0)} ms, ` +
          `late ${result.late}, errors ${result.errors}${result.errors ? ` ${JSON.stringify(result.errorKinds)}` : ''}, lost ${result.lost}, ahead ${result.ahead}; ` +
          `server thread ${(resources.serverElu * 100).toFixed(0)} % busy, service ${resources.serverCpu.toFixed(2)} / PostgreSQL ${resources.postgresCpu.toFixed(2)} / client ${resources.clientCpu.toFixed(2)} / other ${resources.otherCpu.toFixed(2)} cores ${pass ? '✓' : '✗'}\n`,
      );
      for (const e of result.firstErrors) process.stderr.write(`    ${e}\n`);
      for (const line of profile ?? []) process.stderr.write(`  ${line}\n`);
      if (report) {
        measured.push(m);
        if (profile) notes.push(...profile);
        if (resources.otherCpu >= settings.quietCores) {
          notes.push(`${count} editors: work outside this run used ${resources.otherCpu.toFixed(2)} cores during the step (the machine was shared; this row is pessimistic).`);
        }
        if (result.errors || result.verifyErrors) notes.push(`${count} editors: errors ${JSON.stringify(result.errorKinds)}${result.verifyErrors ? `, ${result.verifyErrors} read-backs failed` : ''}; first: ${result.firstErrors.join(' | ')}`);
        if (result.contentMismatch) notes.push(`${count} editors: ${result.contentMismatch} of the lost saves had the acknowledged version but other content.`);
        if (result.ahead) notes.push(`${count} editors: ${result.ahead} canvases were stored at a higher version than acknowledged (a save applied whose answer was lost, e.g. timed out) — not lost.`);
      } else {
        notes.push(`Warm-up: ${count} editors for ${seconds} s, ${result.saves} saves, p99 ${result.p99Ms.toFixed(1)} ms, ${result.errors} errors, ${result.lost} lost (not in the table).`);
      }
      return m;
    };

    // A step that fails while other work used the cores is run once more (LOAD_BUSY_RERUNS); the rerun counts.
    const counted = async (count: number): Promise<Measured> => {
      let m = await step(count, settings.seconds, true);
      for (let r = 0; r < settings.busyReruns && !m.pass && m.resources.otherCpu >= settings.quietCores; r++) {
        if (!budgetLeft(count)) break;
        m.rerun = true;
        process.stderr.write(`  other work used ${m.resources.otherCpu.toFixed(2)} cores during that step: running it again\n`);
        m = await step(count, settings.seconds, true);
      }
      return m;
    };

    if (settings.warmupSeconds > 0) await step(settings.steps[0], settings.warmupSeconds, false);

    let lastPass: number | undefined;
    let firstFail: number | undefined;
    for (const count of settings.steps) {
      if (!budgetLeft(count)) {
        notes.push(`Stopped before the ${count}-editor step: it would not finish within the ${settings.capMs / 60_000}-minute cap.`);
        break;
      }
      const m = await counted(count);
      if (m.pass) lastPass = count;
      else {
        firstFail = count;
        break;
      }
    }
    for (let r = 0; r < settings.refine && lastPass !== undefined && firstFail !== undefined; r++) {
      const mid = Math.round((lastPass + firstFail) / 2 / 5) * 5;
      if (mid <= lastPass || mid >= firstFail) break;
      if (!budgetLeft(mid)) {
        notes.push(`Skipped the bisecting ${mid}-editor step: it would not finish within the ${settings.capMs / 60_000}-minute cap.`);
        break;
      }
      const m = await counted(mid);
      if (m.pass) lastPass = mid;
      else firstFail = mid;
    }
  } catch (err) {
    if (err instanceof CapReached) notes.push(`Stopped: ${err.message}; the table shows the steps finished before it.`);
    else failure = err;
  } finally {
    cap.clear();
    process.stderr.write('stopping the load client and the service…\n');
    await close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }

  printReport(verdict());
  if (failure) {
    console.error(`\nLOAD TEST FAILED: ${failure instanceof Error ? (failure.stack ?? failure.message) : inspect(failure)}`);
    return 1;
  }
  return 0;
}

// LOAD_MODE=live (`npm run load:live`): editors on the live document over WebSockets instead (live-run.ts).
const mode = process.env.LOAD_MODE || 'rest';
if (mode === 'live') {
  process.exitCode = await (await import('./live-run.js')).main();
  // Everything this run started is stopped; if something the service left behind still holds the event loop,
  // say what and leave anyway (the timer itself does not keep the process alive).
  setTimeout(() => {
    console.error(`still active 10 s after the service stopped: ${process.getActiveResourcesInfo().join(', ')}; exiting`);
    process.exit(process.exitCode);
  }, 10_000).unref();
}
else if (mode === 'rest') process.exitCode = await main();
else {
  console.error(`LOAD_MODE must be rest (the default) or live, got "${mode}"`);
  process.exitCode = 2;
}
