// `pnpm example`: the example web application on PORT (default 4180), after `pnpm demo` and with the fleet running.
import { exampleConfigFromEnv } from './config.ts';
import { createWebApp } from './web-app.ts';

const config = exampleConfigFromEnv(process.env);
createWebApp(config).listen(config.port, config.host, () => {
  process.stdout.write(
    `example web app at http://localhost:${config.port}/ (application ${config.applicationAnchor})\n`,
  );
  for (const problem of config.problems) process.stdout.write(`  note: ${problem}\n`);
});
