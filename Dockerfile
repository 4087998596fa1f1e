# One image for api, worker and cli; the command picks the app.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY portal/package.json portal/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
ENV NODE_ENV=production
# As the Kubernetes manifests set it: a small young generation keeps peak RSS under 300 MB
# (docs/performance.md#memory).
ENV NODE_OPTIONS=--max-semi-space-size=8
WORKDIR /app
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY --from=build /app/portal/dist portal/dist
COPY package.json ./
USER node
# 3000: the api; 3001: the worker's /health, /ready and /metrics.
EXPOSE 3000 3001
CMD ["node", "dist/apps/api/main.js"]
