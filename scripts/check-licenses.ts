// `npm run licenses`: the licence of every package in the production dependency tree (what `npm ci --omit=dev`
// installs, the project itself excluded) must be on the allow-list below. The tree and each package's licence come
// from license-checker-rseidelsohn; an SPDX expression passes when it can be satisfied with allowed licences
// (`(MIT OR Apache-2.0)` needs one of them, `MIT AND ISC` both). A package whose package.json misstates the licence
// it ships is read as the shipped one, for its exact name@version only (LICENCE_CORRECTIONS). Exits 1 listing every
// package that fails.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { init, type ModuleInfos } from 'license-checker-rseidelsohn';

/** Permissive licences, accepted for any production dependency. */
export const ALLOWED = new Set([
  'MIT',
  'Apache-2.0',
  'BSD-2-Clause',
  'BSD-3-Clause',
  'ISC',
  '0BSD',
  'BlueOak-1.0.0',
  'CC0-1.0',
  'Unlicense',
  // The zlib licence (pako, which ag-psd uses to read and write compressed PSD layers): permissive, like MIT.
  'Zlib',
]);

/**
 * LGPL is accepted for these packages only: the prebuilt libvips that sharp loads as a shared library at run time
 * (one package per platform, installed only on its own). The LGPL allows that dynamic linking from code under any
 * licence; libvips is used unmodified. GPL and AGPL are accepted for no package.
 */
export const LGPL_EXCEPTIONS = new Set([
  '@img/sharp-libvips-darwin-arm64',
  '@img/sharp-libvips-darwin-x64',
  '@img/sharp-libvips-linux-arm',
  '@img/sharp-libvips-linux-arm64',
  '@img/sharp-libvips-linux-ppc64',
  '@img/sharp-libvips-linux-riscv64',
  '@img/sharp-libvips-linux-s390x',
  '@img/sharp-libvips-linux-x64',
  '@img/sharp-libvips-linuxmusl-arm64',
  '@img/sharp-libvips-linuxmusl-x64',
]);

/**
 * Packages whose package.json declares a licence other than the one they ship, read as the licence they ship. Pinned
 * to the exact version checked: another version is judged by its own package.json again.
 */
export const LICENCE_CORRECTIONS = new Map([
  // Declares "UNLICENSED", but its LICENSE.md is the MIT licence (Copyright (c) 2015 Mike Marcacci): it is a fork
  // of node-redlock by Mike Marcacci, which is MIT. Pulled in by @hocuspocus/extension-redis.
  ['@sesamecare-oss/redlock@1.4.0', 'MIT'],
]);

/** The licences of the package `id` (`name@version`): its correction, else what license-checker read. */
export function licencesOf(id: string, info: { licenses?: string | string[] }): string[] {
  const corrected = LICENCE_CORRECTIONS.get(id);
  if (corrected) return [corrected];
  // A licence the tool guessed from a file rather than read from package.json ends in `*`; it is judged the same.
  return [info.licenses ?? 'UNKNOWN'].flat().map((l) => l.replace(/\*$/, ''));
}

const isLgpl = (id: string) => /^LGPL-[23](\.[01])?(-only|-or-later|\+)?$/.test(id);

/** Whether one licence identifier is acceptable for the package `name`. */
function allowedId(id: string, name: string): boolean {
  return ALLOWED.has(id) || (LGPL_EXCEPTIONS.has(name) && isLgpl(id));
}

/**
 * Whether an SPDX expression (identifiers joined by AND / OR, with parentheses; `X WITH exception` counts as X)
 * can be satisfied with acceptable licences. Anything it cannot parse is not acceptable.
 */
export function satisfies(expression: string, name: string): boolean {
  const tokens = expression.match(/\(|\)|[^\s()]+/g) ?? [];
  let at = 0;
  const fail = () => {
    throw new Error(`cannot parse licence "${expression}"`);
  };
  // or := and ('OR' and)* ; and := term ('AND' term)* ; term := '(' or ')' | id ('WITH' id)?
  const term = (): boolean => {
    const token = tokens[at++];
    if (token === '(') {
      const value = or();
      if (tokens[at++] !== ')') fail();
      return value;
    }
    if (token === undefined || token === ')' || /^(AND|OR|WITH)$/i.test(token)) return fail();
    if (/^WITH$/i.test(tokens[at] ?? '')) at += 2;
    return allowedId(token, name);
  };
  const and = (): boolean => {
    let value = term();
    while (/^AND$/i.test(tokens[at] ?? '')) {
      at++;
      value = term() && value;
    }
    return value;
  };
  const or = (): boolean => {
    let value = and();
    while (/^OR$/i.test(tokens[at] ?? '')) {
      at++;
      value = and() || value;
    }
    return value;
  };
  try {
    const value = or();
    return at === tokens.length && value;
  } catch {
    return false;
  }
}

/** The packages whose licence is not acceptable, as `name@version: licence`. */
export function violations(packages: ModuleInfos): string[] {
  const found: string[] = [];
  for (const [id, info] of Object.entries(packages)) {
    const name = id.slice(0, id.lastIndexOf('@'));
    const licences = licencesOf(id, info);
    if (!licences.every((l) => satisfies(l, name))) found.push(`${id}: ${licences.join(', ')}`);
  }
  return found;
}

function productionTree(start: string): Promise<ModuleInfos> {
  return new Promise((resolve, reject) =>
    init({ start, production: true, excludePrivatePackages: true }, (err, packages) => (err ? reject(err) : resolve(packages))),
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const packages = await productionTree(fileURLToPath(new URL('..', import.meta.url)));
  const counts = new Map<string, number>();
  for (const [id, info] of Object.entries(packages)) {
    const licence = licencesOf(id, info).join(', ');
    counts.set(licence, (counts.get(licence) ?? 0) + 1);
  }
  const summary = [...counts].sort((a, b) => b[1] - a[1]).map(([licence, n]) => `${licence} ${n}`);
  console.log(`${Object.keys(packages).length} production packages: ${summary.join('; ')}`);
  for (const id of Object.keys(packages).filter((id) => LICENCE_CORRECTIONS.has(id))) {
    console.log(`${id} declares ${[packages[id].licenses ?? 'UNKNOWN'].flat().join(', ')}; read as ${LICENCE_CORRECTIONS.get(id)} (see LICENCE_CORRECTIONS)`);
  }
  const bad = violations(packages);
  if (bad.length > 0) {
    console.error(`Licences not on the allow-list (scripts/check-licenses.ts):\n  ${bad.join('\n  ')}`);
    process.exitCode = 1;
  } else {
    console.log('All licences are on the allow-list.');
  }
}
