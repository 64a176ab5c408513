# syntax=docker/dockerfile:1
# Image Canvas: one stateless instance. Runs src/server.ts through tsx (a production dependency), so the image
# runs exactly the code the tests run; no separate tsc build. See docs/deploy.md.

# --- build: all dependencies, then the web client (web/dist) ---
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build:web

# --- production dependencies only ---
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# --- runtime ---
FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
# Code and dependencies stay owned by root (read-only to the service); the service runs as `node` (uid 1000).
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY src ./src
COPY drizzle ./drizzle
COPY --from=build /app/web/dist ./web/dist
# Only used when a production value is missing (the service then refuses to start anyway); writable for `node`.
RUN mkdir -p /app/data && chown node:node /app/data
ENV DATA_DIR=/app/data
USER node
EXPOSE 3000
# Liveness: the process answers. No curl in slim images, so node's own fetch.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/api/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node runs as PID 1 (no npm/npx wrapper), so `docker stop`'s SIGTERM reaches the graceful shutdown (SHUTDOWN_GRACE_MS).
CMD ["node", "--import", "tsx", "src/server.ts"]
