// serve over gRPC, driven from another language and another HTTP/2 stack: Python's grpcio
// (gRPC C-core, with its own HTTP/2 "chttp2": its own HPACK encoder, BDP pings and window
// updates), Debian's python3-grpcio for /usr/bin/python3. Python only moves bytes: the test
// encodes each request with the project's protobuf-es schemas, a small script (PY_CLIENT below)
// sends it over a grpcio channel and hands back the answer's bytes, status and trailers, and
// the test decodes them and compares them with what REST answers over HTTP/1.1. One serve for
// the file; one client process per test, its calls on one connection per channel.
// Without /usr/bin/python3 and its grpc module the tests are skipped (failed when
// PCTL_REQUIRE_SHELLS is set, as in CI, which installs python3-grpcio: .ci/run).
// The vendor's contract is tested the way a Python user would call it: with the message
// classes and stubs Debian's grpc_tools generates from the published files at test time
// (test/helpers/python-stubs.ts, test/python/published_client.py; python3-grpc-tools). The
// byte-moving client above is for the transport tests of the published GroupsService (windows,
// HPACK, many streams), where the bytes themselves are the subject.
import test, { type ExecutionContext, type ImplementationFn } from 'ava';
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { create, createRegistry, fromBinary, toBinary, toJson, type DescMessage, type MessageInitShape, type MessageShape } from '@bufbuild/protobuf';
import { anyUnpack, FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import {
  CreateGroupRequestSchema, DeleteGroupRequestSchema, GetGroupRequestSchema, GroupSchema, ListGroupsRequestSchema, ListGroupsResponseSchema,
} from '../src/gen/chainguard/platform/iam/v2/groups_pb.js';
import { StatusSchema } from '../src/gen/google/rpc/status_pb.js';
import { ErrorInfoSchema } from '../src/gen/google/rpc/error_details_pb.js';
import { ServerReflectionRequestSchema, ServerReflectionResponseSchema } from '../src/gen/grpc/reflection/v1/reflection_pb.js';
import { PAGE_SIZE_MAX } from '../src/api/resources.js';
import { DESCRIPTION_MAX } from '../src/api/schemas.js';
import { startTestServer, type TestServer } from './helpers/serve.js';
import { generatePythonStubs, pythonStubsMissing } from './helpers/python-stubs.js';

const PYTHON = '/usr/bin/python3';
const GROUPS = '/chainguard.platform.iam.v2.GroupsService';
const REFLECTION = '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo';

/**
 * The grpcio side: a channel per entry of the JSON object argv[2] (name: channel options) to
 * argv[1]; a command per JSON line on stdin, its answer as one JSON line on stdout. Messages
 * travel as hex. `unary` makes its calls one after another, or (`concurrent`) all started
 * before any answer is read, as streams open at once on the channel's connection; `bidi` holds
 * a conversation on one stream, each request sent once the answer to the one before has come.
 */
const PY_CLIENT = `
import json, queue, sys
import grpc

channels = {name: grpc.insecure_channel(sys.argv[1], options=[tuple(o) for o in options]) for name, options in json.loads(sys.argv[2]).items()}


def failure(err):
    trailers = [[k, v.hex() if isinstance(v, bytes) else v] for k, v in (err.trailing_metadata() or ())]
    return {"code": err.code().value[0], "details": err.details(), "trailers": trailers}


def outcome(get):
    try:
        return {"code": 0, "response": get().hex()}
    except grpc.RpcError as err:
        return failure(err)


def unary(channel, calls, concurrent):
    sends = [(channel.unary_unary(c["method"]), bytes.fromhex(c["request"]), tuple(map(tuple, c["metadata"])), c["timeout"]) for c in calls]
    if concurrent:
        futures = [send.future(req, metadata=md, timeout=timeout) for send, req, md, timeout in sends]
        return [outcome(f.result) for f in futures]
    return [outcome(lambda: send(req, metadata=md, timeout=timeout)) for send, req, md, timeout in sends]


def bidi(channel, method, requests, metadata):
    answered = queue.Queue()

    def outgoing():
        for req in requests:
            yield bytes.fromhex(req)
            answered.get()

    call = channel.stream_stream(method)(outgoing(), metadata=tuple(map(tuple, metadata)), timeout=20)
    responses = []
    try:
        for res in call:
            responses.append(res.hex())
            answered.put(None)
    except grpc.RpcError as err:
        return {**failure(err), "responses": responses}
    return {"code": 0, "responses": responses}


for line in iter(sys.stdin.readline, ""):
    cmd = json.loads(line)
    channel = channels[cmd["channel"]]
    if cmd["op"] == "unary":
        out = unary(channel, cmd["calls"], cmd["concurrent"])
    else:
        out = bidi(channel, cmd["method"], cmd["requests"], cmd["metadata"])
    print(json.dumps(out), flush=True)
for channel in channels.values():
    channel.close()
`;

// ---- the client, and tests that need it --------------------------------------------------------

/** Why grpcio cannot run here, or undefined. `-I`: none of the environment's Python settings (a pyenv's). */
const grpcioMissing = spawnSync(PYTHON, ['-I', '-c', 'import grpc']).status === 0 ? undefined : `${PYTHON} with its grpc module (Debian's python3-grpcio)`;

/** As test/helpers/tools.ts's testNeeding, for a Python module rather than a command on PATH. */
function testNeedingGrpcio(title: string, fn: ImplementationFn<[]>): void {
  if (!grpcioMissing) test.serial(title, fn);
  else if (process.env.PCTL_REQUIRE_SHELLS) test.serial(title, (t) => t.fail(`not installed: ${grpcioMissing} (.ci/run installs it)`));
  else test.serial.skip(`${title} (not installed: ${grpcioMissing})`, fn);
}

/**
 * The client's two channels to serve. `default`: grpcio as users run it (BDP probing, which
 * advertises 4 MiB windows and frames, and PINGs as answers arrive). `tight`: BDP probing off,
 * so C-core keeps the protocol's 64 KiB windows and 16 KiB frames: an answer larger than that
 * is only sent in full once serve has waited for grpcio's WINDOW_UPDATEs.
 */
const CHANNELS = { default: [], tight: [['grpc.http2.bdp_probe', 0]] } as const;
type Channel = keyof typeof CHANNELS;

type Metadata = [string, string][];
/** A unary call; `timeout` (seconds, 20 if unset) is its deadline, sent as grpc-timeout. */
interface Call { method: string; request: Uint8Array; metadata?: Metadata; timeout?: number }
/** A call's end: code 0 with the answer's bytes, or the status, its message and the trailers (`-bin` values as hex). */
interface Outcome { code: number; response?: string; details?: string; trailers?: Metadata }
interface StreamOutcome extends Outcome { responses: string[] }

interface Grpcio {
  unary(calls: Call[], opts?: { concurrent?: boolean; channel?: Channel }): Promise<Outcome[]>;
  one(call: Call, channel?: Channel): Promise<Outcome>;
  bidi(method: string, requests: Uint8Array[], metadata?: Metadata): Promise<StreamOutcome>;
  /** Ends the script's input; resolves with its exit code and stderr once it has exited. */
  close(): Promise<{ code: number | null; stderr: string }>;
}

/** A grpcio client process for this test, with its CHANNELS to serve; killed after the test if it is still running. */
function grpcio(t: ExecutionContext, srv: TestServer): Grpcio {
  const proc = spawn(PYTHON, ['-I', '-c', PY_CLIENT, srv.url.replace('http://', ''), JSON.stringify(CHANNELS)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const waiting: { resolve: (value: unknown) => void; reject: (err: Error) => void }[] = [];
  createInterface({ input: proc.stdout }).on('line', (line) => waiting.shift()?.resolve(JSON.parse(line)));
  const exited = new Promise<number | null>((resolve) => {
    const end = (why: string, code: number | null) => {
      for (const w of waiting.splice(0)) w.reject(new Error(`the grpcio client ${why} without answering: ${stderr}`));
      resolve(code);
    };
    proc.on('close', (code, signal) => end(`exited (${code ?? signal})`, code));
    proc.on('error', (err) => end(`failed (${err.message})`, null));
  });
  // A client that died mid-command is reported by 'close' above, with its stderr.
  proc.stdin.on('error', () => {});
  t.teardown(async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill();
    await exited;
  });
  const send = <T>(command: object) => new Promise<T>((resolve, reject) => {
    waiting.push({ resolve: resolve as (value: unknown) => void, reject });
    proc.stdin.write(`${JSON.stringify(command)}\n`);
  });
  const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
  const unary = (calls: Call[], { concurrent = false, channel = 'default' }: { concurrent?: boolean; channel?: Channel } = {}) =>
    send<Outcome[]>({ op: 'unary', channel, concurrent, calls: calls.map((c) => ({ method: c.method, request: hex(c.request), metadata: c.metadata ?? [], timeout: c.timeout ?? 20 })) });
  return {
    unary,
    one: async (call, channel) => (await unary([call], { channel }))[0]!,
    bidi: (method, requests, metadata = []) => send({ op: 'bidi', channel: 'default', method, requests: requests.map(hex), metadata }),
    close: async () => {
      proc.stdin.end();
      return { code: await exited, stderr };
    },
  };
}

// ---- protobuf in and out -----------------------------------------------------------------------

const encode = <D extends DescMessage>(schema: D, init: MessageInitShape<D>): Uint8Array => toBinary(schema, create(schema, init));

/** The answer of a call that succeeded, decoded; a failed call throws (failing the test) with its status. */
function decoded<D extends DescMessage>(schema: D, outcome: Outcome): MessageShape<D> {
  if (outcome.code !== 0 || outcome.response === undefined) throw new Error(`expected an answer, got status ${outcome.code}: ${outcome.details}`);
  return fromBinary(schema, Buffer.from(outcome.response, 'hex'));
}

/** The google.rpc.Status of a failed call, from its grpc-status-details-bin trailer. */
function statusOf(outcome: Outcome) {
  const bin = outcome.trailers?.find(([key]) => key === 'grpc-status-details-bin')?.[1];
  if (bin === undefined) throw new Error(`no grpc-status-details-bin in the trailers of status ${outcome.code}: ${JSON.stringify(outcome.trailers)}`);
  const status = fromBinary(StatusSchema, Buffer.from(bin, 'hex'));
  const registry = createRegistry(ErrorInfoSchema);
  const errorInfo = status.details.map((any) => anyUnpack(any, registry)).find((m) => m?.$typeName === 'google.rpc.ErrorInfo');
  return { code: status.code, message: status.message, domain: errorInfo && 'domain' in errorInfo ? errorInfo.domain : undefined };
}

/** A list answer without its page token (it holds the time it was issued: compared by presence). */
function withoutToken(page: { nextPageToken?: string }) {
  const { nextPageToken: _token, ...rest } = page;
  return rest;
}

// ---- one serve, its data made over REST ---------------------------------------------------------

let srv: TestServer;
let bearer: Metadata;
/** Children of `small`: short descriptions, 60 of them (a page of 50, and a second one). */
let small: string;
let smallUids: string[];
/** Children of `big`: long descriptions; all of them in one page is far past 64 KiB. */
let big: string;
const BIG_COUNT = 60;

const enc = encodeURIComponent;

async function children(parent: string, count: number, description: (i: number) => string): Promise<string[]> {
  const uids: string[] = [];
  // Eight at a time: the fair queue's seats per caller.
  for (let i = 0; i < count; i += 8) {
    const batch = Array.from({ length: Math.min(8, count - i) }, (_, j) =>
      srv.ok('POST', '/iam/v2/groups', { parent, group: { name: `team-${String(i + j).padStart(3, '0')}`, description: description(i + j) } }));
    uids.push(...(await Promise.all(batch)).map((g: { uid: string }) => g.uid));
  }
  return uids;
}

test.before(async () => {
  if (grpcioMissing) return;
  srv = await startTestServer();
  bearer = [['authorization', `Bearer ${srv.ownerToken}`]];
  small = (await srv.ok('POST', '/iam/v2/groups', { parent: srv.organizationUid, group: { name: 'small' } })).uid;
  big = (await srv.ok('POST', '/iam/v2/groups', { parent: srv.organizationUid, group: { name: 'big' } })).uid;
  smallUids = await children(small, 60, (i) => `team ${i} of the small tree`);
  // ~4 KB of text each, different in every group.
  await children(big, BIG_COUNT, (i) => Array.from({ length: DESCRIPTION_MAX / 8 }, (_, k) => `${i}:${k}`.padEnd(7, '.')).join(' ').slice(0, DESCRIPTION_MAX - 96));
});

test.after.always(async () => {
  await srv?.dispose();
});

const getGroup = (uid: string, metadata = bearer): Call => ({ method: `${GROUPS}/GetGroup`, request: encode(GetGroupRequestSchema, { uid }), metadata });
const listGroups = (init: MessageInitShape<typeof ListGroupsRequestSchema>): Call => ({ method: `${GROUPS}/ListGroups`, request: encode(ListGroupsRequestSchema, init), metadata: bearer });
const bigList = () => listGroups({ uidp: { childrenOf: big }, orderBy: 'name', pageSize: PAGE_SIZE_MAX });

/** A published Group as REST's JSON of it: every field, but the kind when unset (REST leaves it out of a group). */
function groupJson(group: MessageShape<typeof GroupSchema>): unknown {
  const { kind, ...json } = toJson(GroupSchema, group, { alwaysEmitImplicit: true }) as Record<string, unknown>;
  return kind === 'ORG_KIND_UNSPECIFIED' ? json : { ...json, kind };
}

/** A published page of groups as REST's JSON of it. */
function pageJson(page: MessageShape<typeof ListGroupsResponseSchema>): Record<string, unknown> {
  return { ...(toJson(ListGroupsResponseSchema, page, { alwaysEmitImplicit: true }) as Record<string, unknown>), groups: page.groups.map(groupJson) };
}

// ---- the tests ----------------------------------------------------------------------------------

testNeedingGrpcio('GetGroup, a page of 50 and the next, and a 250 KB page (in 64 KiB windows, and in grpcio\'s own) answer over grpcio what REST answers over HTTP/1.1', async (t) => {
  const py = grpcio(t, srv);
  const org = srv.organizationUid;

  const group = decoded(GroupSchema, await py.one(getGroup(org)));
  t.deepEqual(groupJson(group), await srv.ok('GET', `/iam/v2/groups/${enc(org)}`), 'GetGroup of the organization');

  const scope = `uidp.children_of=${enc(small)}&order_by=name&page_size=50`;
  const first = decoded(ListGroupsResponseSchema, await py.one(listGroups({ uidp: { childrenOf: small }, orderBy: 'name', pageSize: 50 })));
  const restFirst = await srv.ok('GET', `/iam/v2/groups?${scope}`);
  t.is(first.groups.length, 50);
  t.true(toBinary(ListGroupsResponseSchema, first).length > 4096, 'a page of a few KB');
  t.deepEqual(withoutToken(pageJson(first) as { nextPageToken?: string }), withoutToken(restFirst));
  t.truthy(first.nextPageToken, 'a next page over gRPC');
  t.truthy(restFirst.nextPageToken, 'and over REST');

  // Each protocol follows its own token to the same second page, the last.
  const second = decoded(ListGroupsResponseSchema, await py.one(listGroups({ uidp: { childrenOf: small }, orderBy: 'name', pageSize: 50, pageToken: first.nextPageToken })));
  const restSecond = await srv.ok('GET', `/iam/v2/groups?${scope}&page_token=${enc(restFirst.nextPageToken)}`);
  t.deepEqual(pageJson(second), restSecond);
  t.is(second.nextPageToken, '', 'no page after the last');
  t.deepEqual([...first.groups, ...second.groups].map((g) => g.uid), smallUids, 'the walk lists every child once, by name');

  // Far past 64 KiB: on the tight channel serve sends a window's worth, waits for grpcio's
  // WINDOW_UPDATE, and goes on; on the default one it goes in one DATA frame.
  const restWhole = await srv.ok('GET', `/iam/v2/groups?uidp.children_of=${enc(big)}&order_by=name&page_size=${PAGE_SIZE_MAX}`);
  for (const channel of ['tight', 'default'] as const) {
    const answer = await py.one(bigList(), channel);
    const whole = decoded(ListGroupsResponseSchema, answer);
    t.true(answer.response!.length / 2 > 3 * 65_536, `${channel}: more than three 64 KiB windows: ${answer.response!.length / 2} bytes`);
    t.is(whole.groups.length, BIG_COUNT, channel);
    t.deepEqual(pageJson(whole), restWhole, `${channel}: everything in one page, as over REST`);
  }

  const { code, stderr } = await py.close();
  t.is(code, 0, stderr);
});

testNeedingGrpcio('many calls on one channel: 200 one after another, each with its own deadline and metadata, and 50 at once, each answered with its own group', async (t) => {
  const py = grpcio(t, srv);
  /** What is wrong with each answer (none: each is the group, or the whole big page, its call asked for). */
  const wrongAnswers = (calls: Call[], outcomes: Outcome[]) => outcomes.flatMap((outcome, i) => {
    if (outcome.code !== 0) return [`call ${i}: status ${outcome.code} ${outcome.details}`];
    const bytes = Buffer.from(outcome.response!, 'hex');
    if (calls[i]!.method.endsWith('/ListGroups')) {
      const n = fromBinary(ListGroupsResponseSchema, bytes).groups.length;
      return n === BIG_COUNT ? [] : [`call ${i}: ${n} groups of ${BIG_COUNT}`];
    }
    const asked = fromBinary(GetGroupRequestSchema, calls[i]!.request).uid;
    const got = fromBinary(GroupSchema, bytes);
    const name = `team-${String(smallUids.indexOf(asked)).padStart(3, '0')}`;
    return got.uid === asked && got.name === name ? [] : [`call ${i}: asked for ${asked} (${name}), got ${got.uid} (${got.name})`];
  }).concat(outcomes.length === calls.length ? [] : [`${outcomes.length} answers to ${calls.length} calls`]);

  // A deadline of its own on every call: C-core indexes each new grpc-timeout value in its HPACK
  // dynamic table, which fills after ~80 calls and then evicts its oldest entries (the fixed
  // headers' too, sent again and re-indexed); serve's decoder must follow each step. A metadata
  // value never sent before on each (a literal C-core does not index). Every 25th call is the
  // big page, so grpcio's window updates and BDP pings come between the small ones.
  const sequential = Array.from({ length: 200 }, (_, i) => (i % 25 === 24 ? bigList() : {
    ...getGroup(smallUids[i % 60]!, [...bearer, ['x-pctl-call', `call-${i}-${'x'.repeat(i % 40)}`]]),
    timeout: 20 + i,
  }));
  t.deepEqual(wrongAnswers(sequential, await py.unary(sequential)), [], '200 calls one after another');

  // 50 streams open at once (and two big pages among them, sharing the connection's window).
  const concurrent = Array.from({ length: 50 }, (_, i) => getGroup(smallUids[(i * 7) % 60]!));
  concurrent.splice(10, 0, bigList());
  concurrent.splice(40, 0, bigList());
  for (const channel of ['default', 'tight'] as const) {
    t.deepEqual(wrongAnswers(concurrent, await py.unary(concurrent, { concurrent: true, channel })), [], `${concurrent.length} calls at once, ${channel} channel`);
  }

  const { code, stderr } = await py.close();
  t.is(code, 0, stderr);
});

testNeedingGrpcio('errors: no token or a bad one is UNAUTHENTICATED, a missing group NOT_FOUND, with the status in grpc-status-details-bin', async (t) => {
  const py = grpcio(t, srv);
  const org = srv.organizationUid;
  const [none, bad, forged] = await py.unary([
    getGroup(org, []),
    getGroup(org, [['authorization', 'Bearer not-a-jwt']]),
    getGroup(org, [['authorization', `Bearer ${srv.ownerToken.slice(0, -4)}AAAA`]]),
  ]);
  for (const [what, outcome] of [['no token', none!], ['not a JWT', bad!], ['a bad signature', forged!]] as const) {
    t.is(outcome.code, 16, `${what}: UNAUTHENTICATED`);
    const status = statusOf(outcome);
    t.is(status.code, 16, `${what}: the same code in google.rpc.Status`);
    t.is(outcome.details, status.message, `${what}: grpc-message is the Status's message`);
    t.is(status.domain, 'platform.api.v2', `${what}: ErrorInfo`);
  }

  const uid = `${org}/0000000000000000`;
  const missing = await py.one(getGroup(uid));
  t.is(missing.code, 5, 'NOT_FOUND');
  const rest = await srv.call('GET', `/iam/v2/groups/${enc(uid)}`);
  t.is(rest.status, 404);
  t.is(missing.details, rest.json.message, 'the message REST gives');
  t.like(statusOf(missing), { code: 5, message: rest.json.message, domain: 'platform.api.v2' });

  const { code, stderr } = await py.close();
  t.is(code, 0, stderr);
});

testNeedingGrpcio('CreateGroup then DeleteGroup over grpcio, each seen over REST', async (t) => {
  const py = grpcio(t, srv);
  const org = srv.organizationUid;
  const made = decoded(GroupSchema, await py.one({
    method: `${GROUPS}/CreateGroup`, metadata: bearer,
    request: encode(CreateGroupRequestSchema, { parent: org, group: { name: 'from-python', description: 'made by grpcio (C-core)' } }),
  }));
  t.is(made.name, 'from-python');
  t.true(made.uid.startsWith(`${org}/`), 'a child of the organization');
  t.deepEqual(await srv.ok('GET', `/iam/v2/groups/${enc(made.uid)}`), groupJson(made), 'REST reads what gRPC made');
  const listed = await srv.ok('GET', `/iam/v2/groups?uidp.children_of=${enc(org)}&name=from-python`);
  t.deepEqual(listed.groups.map((g: { uid: string }) => g.uid), [made.uid]);

  const deleteIt = { method: `${GROUPS}/DeleteGroup`, request: encode(DeleteGroupRequestSchema, { uid: made.uid }), metadata: bearer };
  const deleted = await py.one(deleteIt);
  t.deepEqual(deleted, { code: 0, response: '' }, 'google.protobuf.Empty');
  t.is((await srv.call('GET', `/iam/v2/groups/${enc(made.uid)}`)).status, 404, 'gone over REST');
  t.is((await py.one(deleteIt)).code, 5, 'a second delete finds nothing');

  const { code, stderr } = await py.close();
  t.is(code, 0, stderr);
});

testNeedingGrpcio('reflection over grpcio: list_services, then the file of chainguard.platform.iam.v2.GroupsService, on one bidirectional stream', async (t) => {
  const py = grpcio(t, srv);
  const requests = [
    encode(ServerReflectionRequestSchema, { messageRequest: { case: 'listServices', value: '' } }),
    encode(ServerReflectionRequestSchema, { messageRequest: { case: 'fileContainingSymbol', value: 'chainguard.platform.iam.v2.GroupsService' } }),
  ];
  const stream = await py.bidi(REFLECTION, requests);
  t.is(stream.code, 0, stream.details);
  t.is(stream.responses.length, 2, 'one answer for each request');
  const [list, file] = stream.responses.map((r) => fromBinary(ServerReflectionResponseSchema, Buffer.from(r, 'hex')));

  t.is(list?.messageResponse.case, 'listServicesResponse');
  const services = list?.messageResponse.case === 'listServicesResponse' ? list.messageResponse.value.service.map((s) => s.name) : [];
  for (const name of ['chainguard.platform.iam.v2.GroupsService', 'chainguard.platform.registry.v2.ReposService', 'chainguard.platform.events.v2.SubscriptionsService', 'chainguard.platform.iam.Groups']) {
    t.true(services.includes(name), `${name} is listed`);
  }
  t.deepEqual(services.filter((name) => !/^(chainguard\.platform\.|grpc\.reflection\.)/.test(name)), [], 'the vendor\'s services only (and reflection)');

  t.is(file?.messageResponse.case, 'fileDescriptorResponse');
  const files = file?.messageResponse.case === 'fileDescriptorResponse' ? file.messageResponse.value.fileDescriptorProto.map((b) => fromBinary(FileDescriptorProtoSchema, b)) : [];
  const iam = files.at(-1);
  t.is(iam?.name, 'chainguard/platform/iam/v2/groups.proto', 'the file that defines it, last');
  t.true(files.some((f) => f.name === 'google/api/annotations.proto'), 'with its imports before it');
  const methods = iam?.service.find((s) => s.name === 'GroupsService')?.method.map((m) => m.name) ?? [];
  t.true(['GetGroup', 'ListGroups', 'CreateGroup', 'DeleteGroup'].every((m) => methods.includes(m)), methods.join(', '));

  const { code, stderr } = await py.close();
  t.is(code, 0, stderr);
});

// ---- the vendor's contract, through stubs generated from the published files ----------------

const stubsMissing = pythonStubsMissing();

/** One line of test/python/published_client.py: a step and its answer (proto3 JSON) or failure. */
interface Step { step: string; version?: string; answer?: Any; error?: { code: number; message: string; status: { code: number; message: string; details: Any[] } | null } }
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- proto3 JSON as Python's json_format wrote it
type Any = any;

(stubsMissing.length ? (process.env.PCTL_REQUIRE_SHELLS ? test.serial : test.serial.skip) : test.serial)(
  `the vendor's GroupsService and RoleBindingsService (v2 and v2beta1) through Python stubs grpc_tools generates from proto/: each answer as REST sees it, errors with their status details${stubsMissing.length ? ` (not installed: ${stubsMissing.join(', ')})` : ''}`,
  async (t) => {
    if (stubsMissing.length) return t.fail(`not installed: ${stubsMissing.join(', ')} (.ci/run installs them)`);
    const stubs = generatePythonStubs(['chainguard/platform/iam/v2', 'chainguard/platform/iam/v2beta1']);
    const org = srv.organizationUid;
    const issuer = (await srv.ok('GET', `/iam/v2/identities/${enc(srv.ownerIdentityUid)}`)).claimMatch.issuer;
    const identity = (await srv.ok('POST', '/iam/v2/identities', { parent: org, identity: { name: 'py-stub-bot', claimMatch: { issuer, subject: 'py-stub-bot' } } })).uid;
    const role = await srv.roleUid('viewer');
    // A process of its own, read as it goes: serve answers from this one.
    const py = spawn(PYTHON, ['-I', join(import.meta.dirname, 'python/published_client.py'), stubs, srv.url.replace('http://', ''), srv.ownerToken, JSON.stringify({ org, identity, role })], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    py.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    t.teardown(() => { if (py.exitCode === null) py.kill(); });
    const exited = new Promise<number | null>((resolve) => py.on('close', resolve));
    const steps: Step[] = [];
    const checked: Promise<void>[] = [];
    createInterface({ input: py.stdout }).on('line', (line) => {
      const step = JSON.parse(line) as Step;
      steps.push(step);
      if (step.step === 'paused') checked.push(checkHeld(step.version!).finally(() => py.stdin.write('\n')));
    });

    /** What the stubs' calls of `version` made and refused, as REST sees it, before the deletes. */
    async function checkHeld(version: string): Promise<void> {
      const mine = steps.slice(steps.findIndex((s) => s.step === 'CreateGroup' && s.version === version));
      const at = (step: string) => mine.find((s) => s.step === step)!;
      const made = at('CreateGroup').answer;
      t.true(made.uid.startsWith(`${org}/`), `${version}: a child of the organization`);
      t.like(at('GetGroup').answer, { uid: made.uid, name: `py-${version}`, description: 'from the generated stubs' });
      t.deepEqual(at('ListGroups').answer.groups.map((g: Any) => g.uid), [made.uid], `${version}: the list by name`);
      t.is(at('UpdateGroup').answer.description, 'changed by mask', `${version}: UpdateGroup's answer`);
      t.like(await srv.ok('GET', `/iam/v2/groups/${enc(made.uid)}`), { name: `py-${version}`, description: 'changed by mask' }, `${version}: REST reads the masked update`);
      t.like(at('CreateRoleBinding').answer, { identityUid: identity, roleUid: role }, version);
      t.is((await srv.ok('GET', `/iam/v2/roleBindings/${enc(at('CreateRoleBinding').answer.uid)}`)).role.uid, role, `${version}: REST reads the binding`);

      const missing = at('GetGroup missing').error!;
      const restMissing = await srv.call('GET', `/iam/v2/groups/${enc(`${org}/0000000000000000`)}`);
      t.is(missing.code, 5, `${version}: NOT_FOUND`);
      t.is(missing.message, restMissing.json.message, `${version}: REST's message`);
      t.like(missing.status, { code: 5, message: restMissing.json.message });
      t.like(missing.status!.details.find((d) => d['@type'] === 'google.rpc.ErrorInfo'), { reason: 'NOT_FOUND', domain: 'platform.api.v2' });

      const invalid = at('CreateGroup invalid').error!;
      t.is(invalid.code, 3, `${version}: INVALID_ARGUMENT`);
      t.deepEqual(invalid.status!.details.find((d) => d['@type'] === 'google.rpc.BadRequest')?.fieldViolations?.map((v: Any) => v.field), ['name'], `${version}: the field named`);
    }

    t.is(await exited, 0, stderr);
    await Promise.all(checked);
    t.is(checked.length, 2, 'v2 and v2beta1');
    for (const version of ['v2', 'v2beta1']) {
      const mine = steps.slice(steps.findIndex((s) => s.step === 'paused' && s.version === version));
      t.deepEqual(mine.find((s) => s.step === 'DeleteRoleBinding')?.answer, {}, version);
      t.deepEqual(mine.find((s) => s.step === 'DeleteGroup')?.answer, {}, version);
      const uid = steps.find((s) => s.step === 'CreateGroup' && s.version === version)!.answer.uid;
      t.is((await srv.call('GET', `/iam/v2/groups/${enc(uid)}`)).status, 404, `${version}: gone over REST`);
    }
    t.is((await srv.ok('GET', `/iam/v2/groups?uidp.children_of=${enc(org)}&name=Not%20A%20Valid%20Name!`)).groups.length, 0, 'the refused create committed nothing');
  },
);

(stubsMissing.length ? (process.env.PCTL_REQUIRE_SHELLS ? test.serial : test.serial.skip) : test.serial)(
  `the vendor's ReposService and PingService (v2) through the generated Python stubs: CreateRepo and ListRepos as REST sees them, Ping without a token${stubsMissing.length ? ` (not installed: ${stubsMissing.join(', ')})` : ''}`,
  async (t) => {
    if (stubsMissing.length) return t.fail(`not installed: ${stubsMissing.join(', ')} (.ci/run installs them)`);
    const stubs = generatePythonStubs(['chainguard/platform/registry/v2', 'chainguard/platform/ping/v2']);
    const group = (await srv.ok('POST', '/iam/v2/groups', { parent: srv.organizationUid, group: { name: 'py-registry' } })).uid as string;
    const py = spawn(PYTHON, ['-I', join(import.meta.dirname, 'python/published_client.py'), stubs, srv.url.replace('http://', ''), srv.ownerToken, JSON.stringify({ scenario: 'registry', group })], { stdio: ['ignore', 'pipe', 'pipe'] });
    t.teardown(() => { if (py.exitCode === null) py.kill(); });
    let stdout = '';
    let stderr = '';
    py.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    py.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    t.is(await new Promise<number | null>((resolve) => py.on('close', resolve)), 0, stderr);
    const steps = new Map(stdout.trim().split('\n').map((line) => JSON.parse(line) as Step).map((s) => [s.step, s]));
    const made = steps.get('CreateRepo')!.answer;
    t.like(made, { name: 'py-repo', bundles: ['py'] });
    t.like(await srv.ok('GET', `/registry/v2/repos/${made.uid}`), { name: 'py-repo', bundles: ['py'] }, 'REST reads the repo');
    t.deepEqual(steps.get('ListRepos')!.answer.repos.map((r: Any) => r.uid), [made.uid]);
    t.deepEqual(steps.get('Ping')!.answer, { response: 'pong' }, 'no token needed');
  },
);
