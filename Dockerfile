# Storyline on the embedded default (SQLite log and read models under /data). Two stages: the first
# installs every dependency (better-sqlite3 compiles with the image's python3, make and g++) and builds
# the server and the board (web/, bundled into dist/web); the second holds the built JavaScript, the
# board's built assets and production dependencies only, and runs as the `node` user.
# Scale-out stores: set STORYLINE_KURRENT_URL / STORYLINE_MONGO_URL (see compose.yaml, docs/deploy.md).

FROM node:20-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts && npm rebuild better-sqlite3
COPY tsconfig.json ./
COPY bin ./bin
COPY scripts ./scripts
COPY src ./src
COPY test ./test
COPY bench ./bench
COPY web ./web
RUN node scripts/build.mjs && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    STORYLINE_DATA=/data \
    PORT=3000 \
    HOST=0.0.0.0
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/bin ./bin
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/web ./dist/web
COPY docs ./docs
COPY README.md ./README.md
RUN mkdir /data && chown node:node /data && chmod 0700 /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "bin/storyline.js", "serve"]
