// Unit and driver tests that need no database: `npx vitest run --config vitest.unit.config.ts <path>`.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { include: ['src/**/*.test.ts', 'test/**/*.test.ts'], testTimeout: 30_000 },
});
