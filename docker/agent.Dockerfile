# syntax=docker/dockerfile:1.7
# Agent: a stateless fetcher. Leases host batches from the Redis frontier, fetches politely,
# writes WARC files (to S3/MinIO when S3_ENDPOINT is set, else DATA_DIR) and reports back.
# Build from the repository root:  docker build -f docker/agent.Dockerfile -t crawler-agent .

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

# ---- build: compiled JavaScript (apps/agent/dist: the agent and its parse worker) ----------------
FROM deps AS build
COPY . .
RUN node scripts/build.mjs agent \
 && rm -rf apps/console apps/coordinator prisma

# ---- runtime --------------------------------------------------------------------------------------
FROM base AS runtime
# MALLOC_MMAP_THRESHOLD_: glibc serves every allocation of 128 KiB or more (response bodies,
# robots.txt files) from its own mapping and returns it on free, instead of raising the threshold
# and keeping freed bodies in its heap (~100 MB more RSS under hostile load; docs/CONFIGURATION.md).
ENV NODE_ENV=production \
    DATA_DIR=/data \
    MALLOC_MMAP_THRESHOLD_=131072
# Code stays root-owned (read-only to the app); only /data is writable.
COPY --from=build /app /app
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
CMD ["node", "apps/agent/dist/main.js"]
