// pctl version: this pctl's version and, when the configured API answers, its server's.
import { defineCommand } from '../../command.js';

export const versionCommand = defineCommand({
  name: 'version',
  help: {
    summary: "print pctl's version and, when the API answers, the server's",
    description:
      "Print this pctl's version (and Node's), then the version of the server at the configured API URL, from its health " +
      'endpoint (GET /healthz, no token needed): "unreachable" when it does not answer, "not reported" when it has no such ' +
      'endpoint. Without an API URL only the client is shown. `pctl --version` prints the bare client version.',
    examples: [
      ['both versions', 'pctl version'],
      ['for a script', 'pctl version -o json'],
    ],
  },
  load: () => import('./run.js'),
});
