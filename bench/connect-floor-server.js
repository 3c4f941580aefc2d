// The floor of gRPC through Connect for Node on this machine: GetGroup answered by a handler
// that does nothing (no auth, no store, no transcoding), on node:http2 alone. serve's gRPC
// figures read against it: what is left above it is serve's own work.
import http2 from 'node:http2';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { IamService } from '../dist/gen/platform/iam/v2/iam_pb.js';

const handler = connectNodeAdapter({ routes: (router) => router.service(IamService, { getGroup: (req) => ({ uid: req.uid, name: 'platform' }) }) });
const server = http2.createServer({}, handler);
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${server.address().port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
