// The image's health check (no curl in it): exits 0 when serve's GET /healthz answers 200,
// else 1 with the answer or the error on stderr. URL: the first argument, default port 8700.
//   docker run --health-cmd "node /opt/pctl/healthcheck.mjs" …
const url = process.argv[2] ?? 'http://127.0.0.1:8700/healthz';
try {
  const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
  if (res.status === 200) process.exit(0);
  process.stderr.write(`${url}: ${res.status} ${await res.text()}\n`);
} catch (err) {
  process.stderr.write(`${url}: ${err.cause?.code ?? err.message}\n`);
}
process.exit(1);
