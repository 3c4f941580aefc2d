// The fair queue itself (serve's default limit), where a test decides when each request is
// answered: a request holds its seat until the test calls done(). Over HTTP a request's seat
// is held only while serve works on it, too briefly to order anything (server-ratelimit.test.ts
// has what a client sees).
import test from 'ava';
import { ApiError } from '../src/api/errors.js';
import { FairQueue, type Admitted, type FairQueuing } from '../src/server/pipeline/fair-queue.js';

const policy = (p: Partial<FairQueuing>): FairQueuing => ({ perCaller: 1, total: 32, queue: 10, maxWaitMs: 60_000, ...p });

/** Requests let in, in order: each records its name when let in, and is answered when the test says. */
function recorder(q: FairQueue) {
  const order: string[] = [];
  const admit = (caller: string, name: string) => Promise.resolve(q.admit(caller)).then((a: Admitted) => (order.push(name), a));
  return { order, admit };
}

test('a caller\'s requests past its seats wait for them; past its queue, a 429 with Retry-After and the fields', async (t) => {
  const q = new FairQueue(policy({ perCaller: 2, queue: 2 }));
  const first = await q.admit('a');
  const second = await q.admit('a');
  t.deepEqual([first.headers, second.headers], [
    { 'ratelimit-policy': '"fair";q=2;qu="concurrent-requests";pctl-queue=2', ratelimit: '"fair";r=1' },
    { 'ratelimit-policy': '"fair";q=2;qu="concurrent-requests";pctl-queue=2', ratelimit: '"fair";r=0' },
  ]);
  const { order, admit } = recorder(q);
  const third = admit('a', 'third');
  const fourth = admit('a', 'fourth');
  const refused = t.throws(() => q.admit('a'), { instanceOf: ApiError });
  t.is(refused?.httpStatus, 429);
  t.like(refused?.toStatus(), { code: 8, message: 'Too many requests at once: each caller may have 2 requests served at once and 2 more waiting; retry in 1 s' });
  t.deepEqual(refused?.headers, { 'ratelimit-policy': '"fair";q=2;qu="concurrent-requests";pctl-queue=2', ratelimit: '"fair";r=0;t=1', 'retry-after': '1' });
  t.deepEqual(q.peek('a'), { 'ratelimit-policy': '"fair";q=2;qu="concurrent-requests";pctl-queue=2', ratelimit: '"fair";r=0' });

  first.done();
  (await third).done();
  t.deepEqual(order, ['third'], 'one seat freed: the first waiting request let in');
  second.done();
  (await fourth).done();
  t.deepEqual(order, ['third', 'fourth']);
  t.deepEqual(q.peek('a').ratelimit, '"fair";r=2', 'every seat free again');
});

test('callers take turns, and a caller that had nothing waiting goes first', async (t) => {
  // One seat for all: every request waits for the one before to be answered.
  const q = new FairQueue(policy({ total: 1 }));
  const { order, admit } = recorder(q);
  const a1 = await q.admit('flood');
  const flood = [admit('flood', 'a2'), admit('flood', 'a3'), admit('flood', 'a4')];
  a1.done();
  const a2 = await flood[0]!;
  // The flood has had a turn; a sequential caller's request comes now.
  const b1 = admit('sequential', 'b1');
  a2.done();
  (await b1).done();
  (await flood[1]!).done();
  (await flood[2]!).done();
  t.deepEqual(order, ['a2', 'b1', 'a3', 'a4'], 'b1 before the flood\'s next, though it came after');
});

test('all callers together have `total` seats: one waits for another caller\'s request to be answered', async (t) => {
  const q = new FairQueue(policy({ perCaller: 5, total: 1 }));
  const events: string[] = [];
  const a = await q.admit('a');
  const b = Promise.resolve(q.admit('b')).then((x) => (events.push('b let in'), x));
  events.push('a answered');
  a.done();
  (await b).done();
  t.deepEqual(events, ['a answered', 'b let in']);
});

test('a request that waits past maxWaitMs is refused with a 429; the queue goes on', async (t) => {
  const q = new FairQueue(policy({ maxWaitMs: 50 }));
  const held = await q.admit('a');
  // The queue's timers do not keep a process alive (serve's sockets do); here, this does.
  const alive = setInterval(() => {}, 1000);
  t.teardown(() => clearInterval(alive));
  const err = await t.throwsAsync(Promise.resolve(q.admit('a')), { instanceOf: ApiError });
  t.is(err?.httpStatus, 429);
  t.is(err?.message, 'Too many requests at once: this one waited 0.05 s for its turn (each caller may have 1 request served at once); retry in 1 s');
  t.is(err?.headers['retry-after'], '1');
  held.done();
  const next = await q.admit('a');
  t.is(next.headers.ratelimit, '"fair";r=0');
  next.done();
});
