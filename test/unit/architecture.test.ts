// The shape of src/: imports point down a table of layers (LAYERS: what each folder and top-level file may
// import), there are no import cycles (type-only imports count: they couple modules too), and the files the web
// client shares with the server (the ones web/src imports, and every node kind in src/kinds/) import nothing that
// only runs in Node, however deep.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');
const WEB_SRC = join(ROOT, 'web', 'src');

const sourcesIn = (dir: string) =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f))
    .map((f) => join(dir, f));

/** Every specifier of a static import/export-from and of a dynamic import() in the file. */
function specifiersOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [
    ...text.matchAll(/^\s*(?:import|export)\b[^'"]*?\bfrom\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1]);
}

/** A relative specifier as the file it names (`./x.js`, and the web client's extensionless `./x` or folder `./kinds`). */
function resolveRelative(from: string, specifier: string): string {
  const path = resolve(dirname(from), specifier).replace(/\.js$/, '');
  return !existsSync(`${path}.ts`) && existsSync(join(path, 'index.ts')) ? join(path, 'index.ts') : `${path}.ts`;
}

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`), or `node:x` for a built-in. */
function packageOf(specifier: string): string {
  if (specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0])) return `node:${specifier.replace(/^node:/, '')}`;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const files = sourcesIn(SRC);
const graph = new Map(files.map((f) => [f, specifiersOf(f).filter((s) => s.startsWith('.')).map((s) => resolveRelative(f, s))]));
const packages = new Map(files.map((f) => [f, specifiersOf(f).filter((s) => !s.startsWith('.')).map(packageOf)]));
const name = (f: string) => relative(ROOT, f);

/** The layer a file of src/ belongs to: its top folder (`services/`), or the file itself when it sits in src/ (`config.ts`). */
const areaOf = (file: string) => {
  const path = relative(SRC, file);
  return path.includes('/') ? `${path.split('/')[0]}/` : path;
};

/** Small modules of src/ that import nothing of ours: anything may import them. */
const LEAVES = ['errors.ts', 'ids.ts', 'html.ts', 'fair-slots.ts', 'metrics.ts', 'data-dir.ts', 'net-utils.ts', 'assets/', 'config-urls.ts', 'log-limiter.ts', 'worker-argv.ts'];

/**
 * Files the web client shares with the server (besides src/kinds/): they may import one another, and only
 * packages that run in a browser (SHARED_PACKAGES). The test below checks them, and everything they import,
 * against what web/src really imports.
 */
const SHARED_WITH_WEB = ['collab/canvas-doc.ts', 'collab/canvas-rules.ts', 'collab/order-keys.ts', 'collab/protocol.ts', 'net/data-scheme.ts', 'auth/auth-errors.ts'];
/** Packages a shared file may import: each runs in a browser as well as in Node. */
const SHARED_PACKAGES = ['yjs', 'fractional-indexing', 'zod', '@noble/hashes'];

/**
 * What each layer may import besides itself: a folder (`db/`) or one file (`collab/canvas-rules.ts`). Lowest
 * first; a layer imports only layers above it in this list. The composition roots (ROOTS) wire everything.
 */
const LAYERS: Record<string, readonly string[]> = {
  'errors.ts': [],
  'ids.ts': [],
  'html.ts': [],
  'fair-slots.ts': [],
  'data-dir.ts': [],
  'net-utils.ts': [],
  'config-urls.ts': [],
  'log-limiter.ts': [],
  'worker-argv.ts': [],
  'metrics.ts': ['errors.ts'],
  'assets/': [],
  // Node kinds: pure modules shared with the web client; they build on the canvas document's rules and nothing
  // else of the server's.
  'kinds/': SHARED_WITH_WEB,
  'net/': LEAVES,
  'storage/': LEAVES,
  'db/': LEAVES,
  'models/': ['kinds/', 'net/', ...LEAVES], // a model's role (what it does) is a node kind's word
  'imaging/': ['kinds/', 'models/', ...LEAVES],
  'auth/': ['db/', ...LEAVES],
  'collab/': ['kinds/', 'auth/', 'db/', 'net/', ...LEAVES],
  // The one environment schema reads each layer's setting types and parsers; everything above may read it.
  'config.ts': ['collab/', 'db/', 'models/', 'net/', ...LEAVES],
  'payments/': ['config.ts', ...LEAVES],
  'video/': ['config.ts', ...LEAVES],
  'services/': ['kinds/', 'auth/', 'collab/', 'config.ts', 'db/', 'imaging/', 'models/', 'net/', 'payments/', 'storage/', 'video/', ...LEAVES],
  'jobs/': ['services/', 'kinds/', 'auth/', 'collab/', 'config.ts', 'db/', 'imaging/', 'models/', 'net/', 'storage/', ...LEAVES],
  // Runs of the canvas graph (DESIGN §12): plans, the cache, prices and the budget, over the job runner.
  'runs/': ['jobs/', 'services/', 'kinds/', 'auth/', 'collab/', 'config.ts', 'db/', 'imaging/', 'models/', 'net/', 'storage/', ...LEAVES],
  // HTTP: Fastify plugins (http/) and the routes (routes/) are one layer, the top one.
  'http/': ['routes/', 'runs/', 'jobs/', 'services/', 'kinds/', 'auth/', 'collab/', 'config.ts', 'db/', 'imaging/', 'models/', 'net/', 'storage/', ...LEAVES],
  'routes/': ['http/', 'runs/', 'jobs/', 'services/', 'kinds/', 'auth/', 'collab/', 'config.ts', 'db/', 'imaging/', 'models/', 'net/', 'storage/', 'payments/', 'video/', ...LEAVES],
};
/** Composition roots: they build the app from every layer, and nothing but another root imports them. */
const ROOTS = ['server.ts', 'app.ts', 'composition.ts', 'runtime.ts', 'gc.ts', 'process-log.ts', 'start-banner.ts'];

/**
 * Imports that break LAYERS while a change that removes them is on its way (none today). The test fails while a
 * listed import no longer exists, so an entry cannot outlive its import.
 */
const BEING_REMOVED: string[] = [];
// ops/ holds the operations commands (backup, restore): a composition root, standing on the configuration and the
// runtime as server.ts does.
ROOTS.push('ops/');

const may = (from: string, to: string) => {
  const [a, b] = [areaOf(from), areaOf(to)];
  if (a === b || ROOTS.includes(a)) return true;
  const target = relative(SRC, to);
  return (LAYERS[a] ?? []).some((allowed) => (allowed.endsWith('/') ? b === allowed : target === allowed));
};

describe('src/ structure', () => {
  it('every relative import names a file in src/', () => {
    const outside = [...graph].flatMap(([from, tos]) => tos.filter((to) => !to.startsWith(`${SRC}/`) || !graph.has(to)).map((to) => `${name(from)} → ${name(to)}`));
    expect(outside).toEqual([]);
  });

  it('places every folder and top-level file of src/ in the layer table', () => {
    const areas = [...new Set(files.map(areaOf))];
    expect(areas.filter((a) => !(a in LAYERS) && !ROOTS.includes(a))).toEqual([]);
  });

  it('imports only down the layer table (services, storage, models, net, payments, video and db never import http/ or routes/)', () => {
    const wrong = [...graph].flatMap(([from, tos]) => tos.filter((to) => graph.has(to) && !may(from, to)).map((to) => `${name(from)} → ${name(to)}`));
    expect(wrong.filter((w) => !BEING_REMOVED.includes(w)), 'imports that go up the layer table (LAYERS)').toEqual([]);
    expect(BEING_REMOVED.filter((w) => !wrong.includes(w)), 'gone: remove them from BEING_REMOVED').toEqual([]);
  });

  it('the layer table itself points down: no layer may import one that may import it', () => {
    const up = Object.entries(LAYERS).flatMap(([a, allowed]) =>
      allowed.filter((b) => b.endsWith('/') || (b.endsWith('.ts') && !b.includes('/'))).filter((b) => (LAYERS[b] ?? []).includes(a)).map((b) => `${a} ⇄ ${b}`),
    );
    // http/ and routes/ are one layer (see LAYERS).
    expect(up.filter((pair) => !/^(http\/ ⇄ routes\/|routes\/ ⇄ http\/)$/.test(pair))).toEqual([]);
  });

  it('nothing below the composition roots imports them', () => {
    const wrong = [...graph].flatMap(([from, tos]) => (ROOTS.includes(areaOf(from)) ? [] : tos.filter((to) => ROOTS.includes(areaOf(to))).map((to) => `${name(from)} → ${name(to)}`)));
    expect(wrong).toEqual([]);
  });

  it('node kinds (src/kinds/) import no package but zod and @noble/hashes (keys: SHA-256 the browser computes too)', () => {
    const wrong = [...packages].filter(([f]) => areaOf(f) === 'kinds/').flatMap(([f, pkgs]) => pkgs.filter((p) => p !== 'zod' && p !== '@noble/hashes').map((p) => `${name(f)} → ${p}`));
    expect(wrong).toEqual([]);
  });

  it('has no import cycles', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const path: string[] = [];
    const visit = (file: string) => {
      state.set(file, 'open');
      path.push(file);
      for (const next of graph.get(file) ?? []) {
        if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), next].map(name).join(' → '));
        else if (!state.has(next) && graph.has(next)) visit(next);
      }
      path.pop();
      state.set(file, 'done');
    };
    for (const file of graph.keys()) if (!state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });
});

describe('files shared with the web client', () => {
  /** The files of src/ that web/src imports, the node kinds, and the declared shared files that exist. */
  const webImports = sourcesIn(WEB_SRC).flatMap((f) =>
    specifiersOf(f)
      .filter((s) => s.startsWith('.'))
      .map((s) => resolveRelative(f, s))
      .filter((to) => to.startsWith(`${SRC}/`)),
  );
  const shared = [...new Set([...webImports, ...files.filter((f) => areaOf(f) === 'kinds/'), ...SHARED_WITH_WEB.map((f) => join(SRC, f)).filter(existsSync)])];

  /** Every file of src/ the shared ones reach through their imports, each with the chain that reaches it. */
  const reached = new Map<string, string[]>();
  const walk = (file: string, chain: string[]) => {
    if (reached.has(file)) return;
    reached.set(file, [...chain, name(file)]);
    for (const next of graph.get(file) ?? []) walk(next, [...chain, name(file)]);
  };
  for (const file of shared) walk(file, []);

  it('web/src imports shared files of src/ that exist', () => {
    expect(webImports.length).toBeGreaterThan(0);
    expect(webImports.filter((f) => !graph.has(f)).map(name)).toEqual([]);
  });

  it('are declared as shared (SHARED_WITH_WEB or src/kinds/), so the layer table keeps them pure', () => {
    const undeclared = [...reached.keys()].filter((f) => areaOf(f) !== 'kinds/' && !SHARED_WITH_WEB.includes(relative(SRC, f)));
    expect(undeclared.map((f) => reached.get(f)!.join(' → '))).toEqual([]);
  });

  it('import nothing that only runs in Node: no node: built-ins, no server packages, however deep', () => {
    const wrong = [...reached].flatMap(([file, chain]) =>
      (packages.get(file) ?? []).filter((p) => !SHARED_PACKAGES.includes(p)).map((p) => `${chain.join(' → ')} → ${p}`),
    );
    expect(wrong).toEqual([]);
  });
});
