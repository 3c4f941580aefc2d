// Fault and latency injection rules of `pctl serve` (a serve-only extension, never part of the
// platform API): their JSON shape on the control API (`/_pctl/faults`) and the one-line form
// of `--fault`, `--latency` and `pctl serve faults add`. Shared by the CLI and the server.
//
//   [METHOD] PATH [rpc=SERVICE/METHOD] EFFECT [p=PROBABILITY] [times=N] [seed=N]
//   EFFECT: error=CODE [retry-after=SECONDS] | latency=DURATION[-DURATION] | reset | stall
//
// Webhook deliveries (docs/events.md) take rules of their own, matched on the sink URL:
//   delivery=SINK_GLOB (drop | duplicate | latency=DURATION[-DURATION]) [p=P] [times=N] [seed=N]
// drop: the attempt is lost on the way (it counts as failed and is retried); duplicate: the
// event is sent twice (same Ce-Id); latency: the attempt waits first.
//
// PATH and rpc are globs (`*` any run of characters): `/iam/v2/groups*`, `GroupsService/List*`.
// `--latency DURATION[-DURATION]` alone delays every request.
import { codeName } from './errors.js';

type FaultEffect = 'error' | 'latency' | 'reset' | 'stall' | 'drop' | 'duplicate';

/** The effects a delivery rule may have. */
const DELIVERY_EFFECTS: readonly FaultEffect[] = ['drop', 'duplicate', 'latency'];

export interface FaultRule {
  /** Given by the server: f1, f2, … */
  id?: string;
  /** An HTTP method, or `*` (default) for any. */
  method?: string;
  /** A glob over the request path (`*` any run of characters); default `*`. */
  path?: string;
  /** A glob over the RPC (`chainguard.platform.iam.v2.GroupsService/GetGroup`, or its `GroupsService/GetGroup` tail); only gRPC/Connect calls match one. */
  rpc?: string;
  /** A glob over a webhook sink URL: the rule applies to deliveries to it (drop, duplicate, latency), not to requests. */
  delivery?: string;
  effect: FaultEffect;
  /** effect error: the AIP-193 code (1-16); 8 answers 429 with Retry-After, 14 answers 503. */
  code?: number;
  /** effect error with code 8 or 14: the Retry-After header, in seconds (default 1). */
  retryAfterSeconds?: number;
  /** effect latency: a fixed delay [ms, ms], or a range [min, max] drawn uniformly. */
  latencyMs?: [number, number];
  /** The chance a matching request is hit, 0 < p <= 1 (default 1). */
  probability?: number;
  /** Hit at most this many requests, then stay (listed) inert. */
  times?: number;
  /** Seeds this rule's random draws (probability, latency range): the same requests meet the same faults. */
  seed?: number;
  /** Filled in by the server when listed: requests this rule has hit. */
  hits?: number;
}

export class FaultSpecError extends Error {}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', '*']);

/** `100ms`, `2s`, `1.5s`, `250` (milliseconds) → milliseconds. */
export function parseMillis(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(text.trim());
  if (!m) throw new FaultSpecError(`"${text}" is not a duration (e.g. 200ms, 1.5s)`);
  const ms = Number(m[1]) * (m[2] === 's' ? 1000 : 1);
  if (ms > 600_000) throw new FaultSpecError(`"${text}" is more than 10 minutes`);
  return Math.round(ms);
}

/** `200ms` → [200, 200]; `100ms-2s` → [100, 2000]. */
function parseLatency(text: string): [number, number] {
  const parts = text.split('-');
  if (parts.length > 2) throw new FaultSpecError(`"${text}" is not a duration or a range (e.g. 200ms, 100ms-2s)`);
  const min = parseMillis(parts[0]!);
  const max = parts.length === 2 ? parseMillis(parts[1]!) : min;
  if (max < min) throw new FaultSpecError(`"${text}": the range ends before it starts`);
  return [min, max];
}

/** One `--fault` line (see the grammar at the top) as a rule; a FaultSpecError says what is wrong. */
export function parseFaultSpec(spec: string): FaultRule {
  const words = spec.trim().split(/\s+/).filter(Boolean);
  const rule: Partial<FaultRule> = {};
  for (const word of words) {
    const eq = word.indexOf('=');
    const key = eq === -1 ? word : word.slice(0, eq).toLowerCase();
    const value = eq === -1 ? '' : word.slice(eq + 1);
    if (eq === -1 && METHODS.has(word.toUpperCase()) && rule.method === undefined && rule.path === undefined) rule.method = word.toUpperCase();
    else if (eq === -1 && word.startsWith('/') && rule.path === undefined) rule.path = word;
    else if (eq === -1 && (word === 'reset' || word === 'stall' || word === 'drop' || word === 'duplicate')) setEffect(rule, word);
    else if (key === 'delivery') rule.delivery = value;
    else if (key === 'error') {
      setEffect(rule, 'error');
      rule.code = Number(value);
    } else if (key === 'latency') {
      setEffect(rule, 'latency');
      rule.latencyMs = parseLatency(value);
    } else if (key === 'retry-after') rule.retryAfterSeconds = Number(value);
    else if (key === 'rpc') rule.rpc = value;
    else if (key === 'p') rule.probability = Number(value);
    else if (key === 'times') rule.times = Number(value);
    else if (key === 'seed') rule.seed = Number(value);
    else throw new FaultSpecError(`"${word}" is not part of a fault: [METHOD] PATH [rpc=NAME] (error=CODE | latency=DURATION[-DURATION] | reset | stall) [p=P] [times=N] [seed=N], or delivery=SINK_GLOB (drop | duplicate | latency=DURATION) …`);
  }
  if (!rule.effect) throw new FaultSpecError('a fault needs an effect: error=CODE, latency=DURATION, reset or stall (deliveries: drop, duplicate or latency=DURATION)');
  return checkFaultRule(rule as FaultRule);
}

/** `--latency 200ms` or `--latency 100ms-1s`: every request delayed; anything longer is a `--fault` line. */
export function parseLatencyFlag(text: string): FaultRule {
  return /^[\d.]+(ms|s)?(-[\d.]+(ms|s)?)?$/.test(text.trim()) ? checkFaultRule({ effect: 'latency', latencyMs: parseLatency(text) }) : parseFaultSpec(`latency=${text}`);
}

function setEffect(rule: Partial<FaultRule>, effect: FaultEffect): void {
  if (rule.effect) throw new FaultSpecError(`a fault has one effect; "${rule.effect}" and "${effect}" given`);
  rule.effect = effect;
}

/** Checks a rule's fields (from a flag or a control-API body); the violations are FaultSpecErrors. */
export function checkFaultRule(rule: FaultRule): FaultRule {
  const fail = (what: string) => {
    throw new FaultSpecError(what);
  };
  if (rule.delivery !== undefined) {
    if (typeof rule.delivery !== 'string' || rule.delivery === '') fail('delivery: must be a glob over sink URLs (e.g. http://127.0.0.1:9000/*)');
    if (!DELIVERY_EFFECTS.includes(rule.effect)) fail('effect: a delivery fault must be drop, duplicate or latency');
    if (rule.method !== undefined || rule.path !== undefined || rule.rpc !== undefined) fail('delivery: a delivery fault has no method, path or rpc');
  } else if (!['error', 'latency', 'reset', 'stall'].includes(rule.effect)) {
    fail(rule.effect === 'drop' || rule.effect === 'duplicate' ? `effect: ${rule.effect} applies to deliveries only (delivery=SINK_GLOB ${rule.effect})` : 'effect: must be error, latency, reset or stall');
  }
  if (rule.method !== undefined && !METHODS.has(rule.method.toUpperCase())) fail(`method: "${rule.method}" is not an HTTP method`);
  if (rule.path !== undefined && !(rule.path.startsWith('/') || rule.path === '*')) fail('path: must start with / (a glob: /iam/v2/groups*)');
  if (rule.effect === 'error' && !(Number.isInteger(rule.code) && rule.code! >= 1 && rule.code! <= 16)) fail('error: must be an AIP-193 code from 1 to 16 (e.g. error=14)');
  if (rule.effect !== 'error' && rule.code !== undefined) fail('code: only an error fault has a code');
  if (rule.effect === 'latency') {
    const l = rule.latencyMs;
    if (!Array.isArray(l) || l.length !== 2 || !l.every((x) => Number.isInteger(x) && x >= 0 && x <= 600_000) || l[1] < l[0]) fail('latency: must be [min, max] milliseconds, 0 to 600000');
  } else if (rule.latencyMs !== undefined) fail('latency: only a latency fault has one');
  if (rule.retryAfterSeconds !== undefined && !(Number.isInteger(rule.retryAfterSeconds) && rule.retryAfterSeconds >= 0 && rule.retryAfterSeconds <= 3600)) fail('retry-after: must be whole seconds, 0 to 3600');
  if (rule.probability !== undefined && !(rule.probability > 0 && rule.probability <= 1)) fail('p: must be a probability above 0 and at most 1');
  if (rule.times !== undefined && !(Number.isInteger(rule.times) && rule.times >= 1)) fail('times: must be a whole number of at least 1');
  if (rule.seed !== undefined && !Number.isInteger(rule.seed)) fail('seed: must be a whole number');
  return { ...rule, ...(rule.method ? { method: rule.method.toUpperCase() } : {}) };
}

/** A rule as one line, the way `--fault` takes it (and `pctl serve faults list` shows it). */
export function formatFaultRule(rule: FaultRule): string {
  const parts = rule.delivery !== undefined ? [`delivery=${rule.delivery}`] : [rule.method ?? '*', rule.path ?? '*'];
  if (rule.rpc) parts.push(`rpc=${rule.rpc}`);
  if (rule.effect === 'error') parts.push(`error=${rule.code} (${codeName(rule.code!)})`);
  else if (rule.effect === 'latency') parts.push(`latency=${rule.latencyMs![0] === rule.latencyMs![1] ? `${rule.latencyMs![0]}ms` : `${rule.latencyMs![0]}ms-${rule.latencyMs![1]}ms`}`);
  else parts.push(rule.effect);
  if (rule.retryAfterSeconds !== undefined) parts.push(`retry-after=${rule.retryAfterSeconds}`);
  if (rule.probability !== undefined && rule.probability !== 1) parts.push(`p=${rule.probability}`);
  if (rule.times !== undefined) parts.push(`times=${rule.times}`);
  if (rule.seed !== undefined) parts.push(`seed=${rule.seed}`);
  return parts.join(' ');
}
