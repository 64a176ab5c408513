// The shape of src/: it never imports the web client's sources, the layers below HTTP never import from
// http/ or routes/, and there are no import cycles (type-only imports count: they couple modules too).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');

const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
  .map((f) => join(SRC, f));

/** Relative specifiers of every static import/export-from and dynamic import(), resolved to files. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\b[^'"]*?\bfrom\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1]);
  return specifiers.filter((s) => s.startsWith('.')).map((s) => resolve(dirname(file), s).replace(/\.js$/, '.ts'));
}

const graph = new Map(files.map((f) => [f, importsOf(f)]));
const name = (f: string) => relative(ROOT, f);

describe('src/ structure', () => {
  it('every relative import names a file in src/', () => {
    const outside = [...graph].flatMap(([from, tos]) => tos.filter((to) => !to.startsWith(`${SRC}/`) || !graph.has(to)).map((to) => `${name(from)} → ${name(to)}`));
    expect(outside).toEqual([]);
  });

  it('services, jobs, storage, models, net, payments, video and db never import http/ or routes/', () => {
    const lower = ['services', 'jobs', 'storage', 'models', 'net', 'payments', 'video', 'db'].map((d) => join(SRC, d) + '/');
    const upper = ['http', 'routes'].map((d) => join(SRC, d) + '/');
    const wrong = [...graph]
      .filter(([from]) => lower.some((d) => from.startsWith(d)))
      .flatMap(([from, tos]) => tos.filter((to) => upper.some((d) => to.startsWith(d))).map((to) => `${name(from)} → ${name(to)}`));
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
