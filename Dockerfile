# syntax=docker/dockerfile:1
# One image per host, each a target of this file: the self-contained folder `pnpm build` writes to dist/<host>/
# copied onto Node 20 slim, run as a non-root user, fit for a read-only root filesystem (nothing is written
# outside /tmp), with a health check, and node as PID 1 in exec form so SIGTERM reaches the host's drain.
#   pnpm build && docker build --target session -t signin-session .
# scripts/build.test.ts runs exactly these folders with node alone; scripts/dockerfile.test.ts lints this file.

ARG NODE_IMAGE=node:20-slim

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    TMPDIR=/tmp
WORKDIR /app
# The files stay root's and read-only to the process; it runs as the image's unprivileged `node` user (1000).
USER 1000:1000
STOPSIGNAL SIGTERM

FROM runtime AS connect
COPY --chown=0:0 dist/connect/ /app/
ENV PORT=4101
EXPOSE 4101
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "main.js"]

FROM runtime AS native
COPY --chown=0:0 dist/native/ /app/
ENV PORT=4102
EXPOSE 4102
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "main.js"]

FROM runtime AS session
COPY --chown=0:0 dist/session/ /app/
ENV PORT=4103
EXPOSE 4103
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "main.js"]

FROM runtime AS device
COPY --chown=0:0 dist/device/ /app/
ENV PORT=4104
EXPOSE 4104
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "main.js"]

FROM runtime AS oidc
COPY --chown=0:0 dist/oidc/ /app/
ENV PORT=4105
EXPOSE 4105
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "main.js"]

# The worker serves no HTTP but its Prometheus metrics (on 127.0.0.1:METRICS_PORT): the health check asks those.
FROM runtime AS worker
COPY --chown=0:0 dist/worker/ /app/
ENV METRICS_PORT=9464
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.METRICS_PORT+'/metrics').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "main.js"]
