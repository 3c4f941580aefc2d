const t1 = performance.now();
await import('../../src/server/index.ts');
const t2 = performance.now();
await import('../../src/cli/main.ts');
const t3 = performance.now();
console.log('server', (t2-t1).toFixed(0), 'cli', (t3-t2).toFixed(0));
