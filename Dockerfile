# One image for the api, the worker and the sandbox; docker-compose.yml picks the start script.
FROM node:20-bookworm

WORKDIR /app
ENV NODE_ENV=development

# Dependencies first, so source edits do not invalidate the npm ci layer.
COPY package.json package-lock.json ./
RUN npm ci

COPY . .
RUN npm run build

EXPOSE 3000 3001 3002
CMD ["npm", "run", "start:api"]
