# One image for the api, the worker and the sandbox; docker-compose.yml picks the start script.
# Built with the dev dependencies, run with production dependencies only, as the `node` user.
FROM node:20-bookworm AS build
WORKDIR /app
# Dependencies first, so source edits do not invalidate the npm ci layer.
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build

FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
EXPOSE 3000 3001 3002
CMD ["npm", "run", "start:api"]
