// Validates Kubernetes objects (a JSON array on stdin) against the API schemas offline with kubernetes-models,
// which ships ESM only; prints one JSON array of `{ object, error }` for every object that does not validate.
const input = await new Promise((done) => {
  let text = '';
  process.stdin.on('data', (d) => {
    text += d;
  });
  process.stdin.on('end', () => done(text));
});
const failures = [];
for (const obj of JSON.parse(input)) {
  const name = `${obj.kind}/${obj.metadata?.name}`;
  try {
    // The Prometheus Operator's kinds (PodMonitor) have their models in a package of their own.
    const models = await import(
      obj.apiVersion.startsWith('monitoring.coreos.com/')
        ? `@kubernetes-models/prometheus-operator/${obj.apiVersion}`
        : `kubernetes-models/${obj.apiVersion}`
    );
    const Model = models[obj.kind];
    if (!Model) throw new Error(`no schema for ${obj.apiVersion} ${obj.kind}`);
    new Model(obj).validate();
  } catch (err) {
    failures.push({ object: name, error: err instanceof Error ? err.message : String(err) });
  }
}
process.stdout.write(`${JSON.stringify(failures)}\n`);
