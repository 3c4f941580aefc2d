// The fault injector: rules from `--fault`/`--latency` and the control API, matched against
// each call before it is routed. A fault never changes data: an injected error, reset or
// stall answers instead of the handler; latency delays the call, which then runs as usual.
// Each rule draws from its own seeded generator, so a test run meets the same faults.
import { ApiError, Code, codeName } from '../../api/errors.js';
import { checkFaultRule, type FaultRule } from '../../api/faults.js';
import { mulberry32 } from '../base/random.js';

/** What the injector decided for one call. */
export type FaultDecision =
  | { rule: FaultRule; effect: 'latency'; delayMs: number }
  | { rule: FaultRule; effect: 'error'; error: ApiError }
  | { rule: FaultRule; effect: 'reset' | 'stall' };

/** What the injector decided for one webhook delivery attempt. */
export type DeliveryFaultDecision =
  | { rule: FaultRule; effect: 'latency'; delayMs: number }
  | { rule: FaultRule; effect: 'drop' | 'duplicate' };

interface ActiveRule {
  rule: FaultRule;
  match: (method: string, path: string, rpc: string | undefined) => boolean;
  /** A delivery rule: whether it applies to this sink URL. */
  matchSink?: (sink: string) => boolean;
  random: () => number;
  hits: number;
}

/** `*` matches any run of characters; everything else literally. */
function globRegExp(glob: string): RegExp {
  return new RegExp(`^${glob.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
}

export class FaultInjector {
  #rules: ActiveRule[] = [];
  #next = 1;

  /** Adds a rule (checked: FaultSpecError when it is not one); returns it with its id. */
  add(input: FaultRule): FaultRule {
    const rule: FaultRule = { ...checkFaultRule(input), id: `f${this.#next++}` };
    delete rule.hits;
    const method = rule.method && rule.method !== '*' ? rule.method : undefined;
    const path = globRegExp(rule.path ?? '*');
    const rpc = rule.rpc ? globRegExp(rule.rpc) : undefined;
    const sink = rule.delivery !== undefined ? globRegExp(rule.delivery) : undefined;
    this.#rules.push({
      rule,
      ...(sink ? { matchSink: (url: string) => sink.test(url) } : {}),
      hits: 0,
      random: mulberry32(rule.seed ?? 1),
      // An rpc rule matches the full name or its `Service/Method` tail.
      match: (m, p, r) => (!method || m === method) && path.test(p) && (!rpc || (r !== undefined && (rpc.test(r) || rpc.test(r.replace(/^.*\.(?=[^.]+\/)/, ''))))),
    });
    return { ...rule };
  }

  list(): FaultRule[] {
    return this.#rules.map((r) => ({ ...r.rule, hits: r.hits }));
  }

  /** Removes one rule by id; false when there is none. */
  remove(id: string): boolean {
    const before = this.#rules.length;
    this.#rules = this.#rules.filter((r) => r.rule.id !== id);
    return this.#rules.length < before;
  }

  clear(): number {
    const n = this.#rules.length;
    this.#rules = [];
    return n;
  }

  /** The delivery rules that hit an attempt to send to `sink`, in order: latencies, then at most one drop or duplicate. */
  decideDelivery(sink: string): DeliveryFaultDecision[] {
    const out: DeliveryFaultDecision[] = [];
    for (const r of this.#rules) {
      if (!r.matchSink?.(sink) || !fires(r)) continue;
      const rule = r.rule;
      if (rule.effect === 'latency') {
        out.push({ rule, effect: 'latency', delayMs: latencyOf(r) });
        continue;
      }
      out.push({ rule, effect: rule.effect as 'drop' | 'duplicate' });
      break;
    }
    return out;
  }

  /**
   * The rules that hit this call, in order: any latency rules, then at most one answer
   * (error, reset or stall), after which later rules are not drawn.
   */
  decide(method: string, path: string, rpc?: string): FaultDecision[] {
    const out: FaultDecision[] = [];
    for (const r of this.#rules) {
      if (r.matchSink || !r.match(method, path, rpc) || !fires(r)) continue;
      const rule = r.rule;
      if (rule.effect === 'latency') {
        out.push({ rule, effect: 'latency', delayMs: latencyOf(r) });
        continue;
      }
      out.push(rule.effect === 'error' ? { rule, effect: 'error', error: injectedError(rule) } : { rule, effect: rule.effect as 'reset' | 'stall' });
      break; // an answer (error, reset, stall) ends the call: later rules are not drawn
    }
    return out;
  }
}

/** Whether a matching rule fires now: not used up, and its probability drawn; a firing is a hit. */
function fires(r: ActiveRule): boolean {
  if (r.rule.times !== undefined && r.hits >= r.rule.times) return false;
  if (r.random() >= (r.rule.probability ?? 1)) return false;
  r.hits++;
  return true;
}

/** A latency rule's delay: its fixed value, or drawn from its range. */
function latencyOf(r: ActiveRule): number {
  const [min, max] = r.rule.latencyMs!;
  return min === max ? min : Math.round(min + r.random() * (max - min));
}

function injectedError(rule: FaultRule): ApiError {
  const code = rule.code!;
  const headers: Record<string, string> = {};
  if (code === Code.RESOURCE_EXHAUSTED || code === Code.UNAVAILABLE) headers['retry-after'] = String(rule.retryAfterSeconds ?? 1);
  return new ApiError(code, `Injected fault ${rule.id}: ${codeName(code)}`, {
    reason: 'INJECTED_FAULT',
    metadata: { fault: rule.id! },
    headers,
  });
}
