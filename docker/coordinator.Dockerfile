# syntax=docker/dockerfile:1.7
# Coordinator: the control plane (REST /v1, tRPC, BullMQ workers, ClickHouse ingest).
# Build from the repository root:  docker build -f docker/coordinator.Dockerfile -t crawler-coordinator .
# It runs compiled JavaScript (apps/coordinator/dist), as `npm start` does on a developer machine.

ARG NODE_IMAGE=node:20-bookworm-slim

# ---- base: Node 20 + the npm the lockfile was written with --------------------------------------
FROM ${NODE_IMAGE} AS base
# npm 11 honours the "allowScripts" policy in package.json (install scripts are opt-in).
ARG NPM_VERSION=11.19.1
ENV npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false
RUN npm install --global "npm@${NPM_VERSION}" && npm --version
WORKDIR /app

# ---- deps: install from the lockfile; only manifests are copied so this layer caches well -------
FROM base AS deps
COPY package.json package-lock.json ./
COPY apps/agent/package.json apps/agent/
COPY apps/console/package.json apps/console/
COPY apps/coordinator/package.json apps/coordinator/
COPY packages/frontier/package.json packages/frontier/
COPY packages/adapters/package.json packages/adapters/
COPY packages/analytics/package.json packages/analytics/
COPY packages/crawl-core/package.json packages/crawl-core/
COPY packages/domain/package.json packages/domain/
COPY packages/synthetic-web/package.json packages/synthetic-web/
COPY packages/testing/package.json packages/testing/
RUN --mount=type=cache,target=/root/.npm npm ci

# ---- build: generated Prisma client, then compiled JavaScript (apps/coordinator/dist) -----------
FROM deps AS build
COPY . .
RUN npm run generate \
 && node scripts/build.mjs coordinator \
 && rm -rf apps/agent apps/console

# ---- runtime --------------------------------------------------------------------------------------
FROM base AS runtime
ENV NODE_ENV=production \
    COORDINATOR_HOST=0.0.0.0 \
    COORDINATOR_PORT=4000 \
    DATA_DIR=/data
# Code stays root-owned (read-only to the app); only /data is writable.
COPY --from=build /app /app
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 4000
CMD ["node", "apps/coordinator/dist/main.js"]
