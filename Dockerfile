# syntax=docker/dockerfile:1
# music-etl worker image. Build: docker build -t music-etl .
# Runs the JavaScript of `npm run build`: no TypeScript loader in production (it cost the worker
# about 45 MB of its 256 MB budget).

# --- build: the TypeScript compiled to JavaScript in dist/ ---
FROM node:22-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY vendor/ ./vendor/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src/ ./src/
COPY migrations/ ./migrations/
COPY build/ ./build/
RUN npm run build

# --- sandbox: the simulated upstream, for the compose demo profile only ---
# Not in the worker image: it is test equipment. `docker compose --profile demo` builds this target.
FROM build AS sandbox
COPY sandbox/ ./sandbox/
ENTRYPOINT ["node", "--import", "tsx", "sandbox/main.ts"]

# --- deps: production dependencies only, installed exactly from the lockfile ---
FROM node:22-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# The package.json override of msgpackr's optional native extractor points here.
COPY vendor/ ./vendor/
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# --- runtime: only what runs ---
FROM node:22-slim
ENV NODE_ENV=production
# A heap budget: left alone, V8 lets garbage grow to several times the worker's live heap before
# collecting it. 128 MB holds the largest answer max_response_bytes lets through (16 MiB, about 3.3
# times its size in heap until its rows are written): a worker backfilling while it reads one
# needs 81 to 96 MB and peaks at 247 MiB RSS, within a 256 MiB container (docs/benchmarks.md,
# "Memory per response"). The bench runs the worker and the CLI with these same options.
ENV NODE_OPTIONS=--max-old-space-size=128
WORKDIR /app
# Owned by root and read-only to the `node` user the process runs as.
COPY package.json package-lock.json ./
COPY --from=deps /app/node_modules ./node_modules
COPY vendor/ ./vendor/
COPY --from=build /app/dist/ ./dist/
COPY etl.config.example.json ./
# `etl <command>` as the messages and docs write it: `docker compose exec worker etl status`.
RUN printf '#!/bin/sh\nexec node /app/dist/src/cli/main.js "$@"\n' > /usr/local/bin/etl \
  && chmod 755 /usr/local/bin/etl
USER node
# The worker's operator HTTP port: /livez, /readyz, /metrics, /queues.
# The operator port listens on every interface of the container (the host decides what to publish).
ENV WORKER_HOST=0.0.0.0
EXPOSE 9464
# No curl in slim images: node's own fetch. Liveness, not readiness: orchestrators that act on
# health (Swarm, autoheal) would otherwise restart every worker while Postgres or Redis is away,
# and a worker waits for them and recovers by itself.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9464/livez').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"]
# node itself is PID 1 (no npm wrapper process), so SIGTERM reaches the worker, which drains.
ENTRYPOINT ["node", "dist/src/cli/main.js"]
CMD ["worker"]
