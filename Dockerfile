# syntax=docker/dockerfile:1
# One image per host, each a target of this file: the self-contained folder `pnpm build` writes to dist/<host>/
# copied onto Node 24 LTS slim, run as a non-root user, fit for a read-only root filesystem (nothing is written
# outside /tmp), with a health check, and node as PID 1 in exec form so SIGTERM reaches the host's drain.
#   pnpm build && docker build --target session -t signin-session .
# scripts/build.test.ts runs exactly these folders with node alone; scripts/dockerfile.test.ts lints this file.

# The version of .node-version (the one CI and scripts/bootstrap.sh run), pinned by digest so a rebuilt tag cannot
# change what ships. The digest is the multi-platform index of node:24.21.0-slim as several public repositories pin
# it; no registry is reachable from the development machines, so it was not pulled here: check it when moving
# (`docker buildx imagetools inspect node:24.21.0-slim`) and update it with .node-version (scripts/node-version.test.ts).
ARG NODE_IMAGE=node:24.21.0-slim@sha256:0e0ff40c39bc087845bfb27465a0df4ea419520094bc35842ff83dd8cbe6f9b6

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    TMPDIR=/tmp
WORKDIR /app
# The admin tool (`pnpm admin` built), in every image, so the migration Job's image and any running pod can run
# it with the pod's own configuration: kubectl exec deploy/signin-session -- node admin/main.js org list
COPY --chown=0:0 dist/admin/ /app/admin/
# The files stay root's and read-only to the process; it runs as the image's unprivileged `node` user (1000).
USER 1000:1000
STOPSIGNAL SIGTERM
CMD ["node", "main.js"]

# What every HTTP host's image shares. The host listens on PORT, by default on its own port (DEFAULT_PORTS in
# libs/platform/src/config.ts), which the build writes into the folder's package.json as config.port: the health
# check asks /healthz there, so the port is declared once, in the host's configuration.
FROM runtime AS http-host
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||require('./package.json').config.port)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

# A target per host: its folder; the rest is inherited.
FROM http-host AS connect
COPY --chown=0:0 dist/connect/ /app/

FROM http-host AS native
COPY --chown=0:0 dist/native/ /app/

FROM http-host AS session
COPY --chown=0:0 dist/session/ /app/

FROM http-host AS device
COPY --chown=0:0 dist/device/ /app/

FROM http-host AS oidc
COPY --chown=0:0 dist/oidc/ /app/

# The management API: operators only (deploy/k8s admits only the namespaces its overlay names).
FROM http-host AS management
COPY --chown=0:0 dist/management/ /app/

# The worker serves no HTTP but its Prometheus metrics (on 127.0.0.1:METRICS_PORT): the health check asks those.
FROM runtime AS worker
COPY --chown=0:0 dist/worker/ /app/
ENV METRICS_PORT=9464
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.METRICS_PORT+'/metrics').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
