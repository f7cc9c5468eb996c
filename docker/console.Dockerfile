# syntax=docker/dockerfile:1.7
# Console: the Next.js dashboard. It has no database access; every number comes from the
# coordinator (COORDINATOR_URL, read at request time, so one image fits every deployment).
# Build from the repository root:  docker build -f docker/console.Dockerfile -t crawler-console .

ARG NODE_IMAGE=node:20-bookworm-slim

# ---- base: Node 20 + the npm the lockfile was written with --------------------------------------
FROM ${NODE_IMAGE} AS base
# npm 11 honours the "allowScripts" policy in package.json (install scripts are opt-in).
ARG NPM_VERSION=11.19.1
ENV npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false \
    NEXT_TELEMETRY_DISABLED=1
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

# ---- build: next build (offline: no remote fonts or build-time fetches) -------------------------
FROM deps AS build
COPY tsconfig.base.json ./
# The wire constants it shares with the coordinator (@crawler/domain/api) are bundled from source.
COPY packages/domain ./packages/domain
COPY apps/console ./apps/console
RUN npm run build --workspace @crawler/console \
 && rm -rf apps/console/.next/cache

# ---- runtime: next start --------------------------------------------------------------------------
FROM base AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    HOSTNAME=0.0.0.0
# Dependencies stay root-owned; only the app folder (.next/cache) is writable by node.
COPY --from=build /app/package.json /app/tsconfig.base.json /app/
COPY --from=build /app/node_modules /app/node_modules
COPY --from=build /app/packages/domain /app/packages/domain
COPY --from=build --chown=node:node /app/apps/console /app/apps/console
USER node
WORKDIR /app/apps/console
EXPOSE 3000
CMD ["npx", "next", "start", "--hostname", "0.0.0.0", "--port", "3000"]
