# One image for every process of the service; the command picks the process.

# The build stage compiles the TypeScript sources to dist/ (npm run build); the image runs that
# JavaScript with plain node: no compiler loaded at run time, ≈ 25–60 MiB less resident per process.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY . .
RUN npm run build

FROM node:24-bookworm-slim
WORKDIR /app
# ffmpeg: Debian's 5.1.x with the distribution's security updates, the build pet videos are read
# with (the static build in the npm packages is only a fallback). util-linux's prlimit (in the base
# image) puts each ffmpeg/ffprobe child under its memory and CPU limits.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ ffmpeg && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev
COPY . .
COPY --from=build /app/dist ./dist
# glibc's per-thread malloc arenas fragment under libvips' image threads (sharp's own advice):
# two arenas keep the resident size of an image-processing process bounded.
ENV HOST=0.0.0.0 PORT=8080 DATA_DIR=/data MALLOC_ARENA_MAX=2
# The heap policy of every process (infrastructure/heap-policy.ts, as `npm start` sets it): the old
# generation capped at 320 MiB, so garbage between collections cannot take a process past 512 MiB
# resident. Change it with NODE_OPTIONS in compose's environment (docs/operations.md#memory).
ENV NODE_OPTIONS="--max-old-space-size=320"
EXPOSE 8080
CMD ["node", "dist/runtime/main.js"]
