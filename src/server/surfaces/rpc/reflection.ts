// gRPC server reflection (grpc.reflection.v1 and the v1alpha that older grpcurl, Postman and
// evans still ask for): the services, and the file descriptors of proto/ with their imports,
// so a client can call serve without the .proto files. Public: it tells what proto/ already
// publishes, and `grpcurl list` should work before a token is at hand.
import { create, toBinary, type DescFile, type DescMessage, type DescService } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import type { ConnectRouter } from '@connectrpc/connect';
import { ServerReflection as ReflectionV1 } from '../../../gen/grpc/reflection/v1/reflection_pb.js';
import { ServerReflection as ReflectionV1alpha } from '../../../gen/grpc/reflection/v1alpha/reflection_pb.js';

/** The fields of a reflection request, the same in v1 and v1alpha. */
interface ReflectionRequest {
  host: string;
  messageRequest:
    | { case: 'fileByFilename' | 'fileContainingSymbol' | 'allExtensionNumbersOfType' | 'listServices'; value: string }
    | { case: 'fileContainingExtension'; value: { containingType: string; extensionNumber: number } }
    | { case: undefined; value?: undefined };
}

/** The gRPC codes a reflection error answer carries. */
const NOT_FOUND = 5;
const INVALID_ARGUMENT = 3;

export function registerReflection(router: ConnectRouter, services: readonly DescService[]): void {
  const index = indexFiles(services);
  for (const reflection of [ReflectionV1, ReflectionV1alpha]) {
    const method = reflection.method.serverReflectionInfo;
    router.rpc(method, async function* (requests: AsyncIterable<ReflectionRequest>) {
      const sent = new Set<string>(); // an import goes once per stream, as grpc-go sends them
      for await (const request of requests) {
        yield create(method.output, { validHost: request.host, originalRequest: request, messageResponse: answer(request, index, sent) } as never);
      }
    } as never);
  }
}

interface FileIndex {
  services: string[];
  byName: Map<string, DescFile>;
  bySymbol: Map<string, DescFile>;
  /** Extendee type name → the extension numbers declared for it. */
  extensions: Map<string, Map<number, DescFile>>;
}

function answer(request: ReflectionRequest, index: FileIndex, sent: Set<string>) {
  const files = (file: DescFile | undefined, what: string) =>
    file
      ? { case: 'fileDescriptorResponse', value: { fileDescriptorProto: withImports(file).filter((f) => f === file || !sent.has(f.proto.name)).map((f) => (sent.add(f.proto.name), f)).map((f) => toBinary(FileDescriptorProtoSchema, f.proto)) } }
      : { case: 'errorResponse', value: { errorCode: NOT_FOUND, errorMessage: `${what} not found` } };
  const { messageRequest: r } = request;
  switch (r.case) {
    case 'listServices':
      return { case: 'listServicesResponse', value: { service: index.services.map((name) => ({ name })) } };
    case 'fileByFilename':
      return files(index.byName.get(r.value), `file ${r.value}`);
    case 'fileContainingSymbol':
      return files(index.bySymbol.get(r.value.replace(/^\./, '')), `symbol ${r.value}`);
    case 'fileContainingExtension':
      return files(index.extensions.get(r.value.containingType)?.get(r.value.extensionNumber), `extension ${r.value.extensionNumber} of ${r.value.containingType}`);
    case 'allExtensionNumbersOfType': {
      if (!index.bySymbol.has(r.value)) return { case: 'errorResponse', value: { errorCode: NOT_FOUND, errorMessage: `type ${r.value} not found` } };
      return { case: 'allExtensionNumbersResponse', value: { baseTypeName: r.value, extensionNumber: [...(index.extensions.get(r.value)?.keys() ?? [])] } };
    }
    default:
      return { case: 'errorResponse', value: { errorCode: INVALID_ARGUMENT, errorMessage: 'the request names no reflection query' } };
  }
}

/** A file and everything it imports, imports first. */
function withImports(file: DescFile, out: DescFile[] = []): DescFile[] {
  if (out.includes(file)) return out;
  for (const dep of file.dependencies) withImports(dep, out);
  out.push(file);
  return out;
}

function indexFiles(services: readonly DescService[]): FileIndex {
  const index: FileIndex = { services: services.map((s) => s.typeName), byName: new Map(), bySymbol: new Map(), extensions: new Map() };
  const addMessage = (m: DescMessage, file: DescFile) => {
    index.bySymbol.set(m.typeName, file);
    for (const e of m.nestedEnums) index.bySymbol.set(e.typeName, file);
    for (const n of m.nestedMessages) addMessage(n, file);
  };
  for (const file of services.flatMap((s) => withImports(s.file))) {
    index.byName.set(file.proto.name, file);
    for (const m of file.messages) addMessage(m, file);
    for (const e of file.enums) index.bySymbol.set(e.typeName, file);
    for (const s of file.services) {
      index.bySymbol.set(s.typeName, file);
      for (const m of s.methods) index.bySymbol.set(`${s.typeName}.${m.name}`, file);
    }
    for (const x of file.extensions) {
      index.bySymbol.set(x.typeName, file);
      const of = index.extensions.get(x.extendee.typeName) ?? new Map<number, DescFile>();
      of.set(x.number, file);
      index.extensions.set(x.extendee.typeName, of);
    }
  }
  return index;
}
