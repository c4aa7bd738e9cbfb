# syntax=docker/dockerfile:1
# Build stage: compile TypeScript and build the native SQLite driver.
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

# Runtime stage: production dependencies and dist/ only, as an unprivileged user.
FROM node:20-bookworm-slim
ENV NODE_ENV=production PORT=3000 DATABASE_URL=sqlite:/app/data/im.sqlite
WORKDIR /app
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node package.json ./
RUN mkdir -p /app/data && chown node:node /app/data
USER node
VOLUME ["/app/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
# Heap limits keep RSS under load near 170 MB (see docs/decisions.md); raise them with the load.
CMD ["node", "--max-semi-space-size=16", "--max-old-space-size=192", "dist/main.js"]
