// The React client: built into web/dist and served by the service (src/http/web-client.ts).
// `npm run dev:web` serves it with hot reload on :5173 and proxies the service's paths to it; start the service
// with AUTH_URL=http://localhost:5173 so sign-in redirects come back to the dev server.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const service = process.env.SERVICE_URL ?? 'http://localhost:3000';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  plugins: [react()],
  publicDir: false,
  server: {
    port: 5173,
    strictPort: true,
    proxy: Object.fromEntries(['/api', '/files', '/dev-idp'].map((path) => [path, { target: service, xfwd: true }])),
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    sourcemap: false,
    // The person finder's files (web/src/canvas/person-mask.ts) stay files: it fetches them by address, and the
    // client's CSP allows no data: fetches.
    assetsInlineLimit: (file: string) => (file.includes('@mediapipe') ? false : undefined),
  },
});
