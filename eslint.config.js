// ESLint over every TypeScript tree (src, web, test, bench, load, scripts) with type-aware rules.
// `npm run lint` runs it with --max-warnings 0: a warning fails as an error does.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig([
  globalIgnores([
    '**/node_modules/',
    'dist/',
    'web/dist/',
    'data/',
    'test-artifacts/',
    'drizzle/meta/',
    // Generated from docs/openapi.json by `npm run web:types`.
    'client/schema.d.ts',
  ]),

  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        // Each file is checked with the tsconfig.json that includes it (root, web/ or load/); this file, in
        // none of them, with a default project.
        projectService: { allowDefaultProject: ['eslint.config.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // The rules this configuration exists for: a promise nobody awaits, a promise where a void callback is
      // expected, a switch over a union that forgets a member (one with a `default` handles the rest on purpose,
      // e.g. the metrics mapping a few error codes to labels).
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // Fastify plugins and handlers, and implementations of promise-returning ports (stores, models, fakes), are
      // async by contract whether or not they await; async also turns a synchronous throw into a rejection.
      '@typescript-eslint/require-await': 'off',
      // A binding named `_…` is unused on purpose (`for await (const _chunk of …)`); so is a property taken out
      // of an object only to leave the rest (`const { a: _, ...rest } = …`).
      '@typescript-eslint/no-unused-vars': ['error', { varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },

  // The web client: browser globals and the React hooks rules.
  {
    files: ['web/src/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
    languageOptions: { globals: globals.browser },
  },
  {
    files: ['web/src/**/*.{ts,tsx}'],
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
      // The client is not built with the React Compiler. These four rules report what would stop the compiler
      // from optimising a component — a ref that holds the latest callback, written during render; setState
      // at the start of an effect that loads data — which is correct React without it.
      'react-hooks/refs': 'off',
      'react-hooks/immutability': 'off',
      'react-hooks/set-state-in-effect': 'off',
      'react-hooks/preserve-manual-memoization': 'off',
    },
  },

  // Everything else runs on Node.
  {
    files: ['src/**', 'test/**', 'bench/**', 'load/**', 'scripts/**', '*.ts', '*.js', 'web/vite.config.ts'],
    languageOptions: { globals: globals.node },
  },

  // Tests, benchmarks and the load generator read untyped JSON from HTTP responses (`res.json()`,
  // `JSON.parse`) and assert on it: the no-unsafe-* family would flag every such line without finding bugs,
  // and a parsed body is typed `any` on purpose (the assertions are its type).
  {
    files: ['test/**', 'bench/**', 'load/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
]);
