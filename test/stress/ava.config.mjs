// `npm run test:stress`: the slow crash, fuzz and concurrency tests, one file at a time
// (they measure throughput and each spawns its own `pctl serve`). `npm test` leaves them out.
export default {
  files: ['test/stress/**/*.test.ts'],
  extensions: { ts: 'module' },
  nodeArguments: ['--import=tsx'],
  concurrency: 1,
  workerThreads: false,
  timeout: '120s',
};
