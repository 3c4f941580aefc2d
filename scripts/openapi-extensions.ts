// serve's routes that no .proto describes, for openapi.json (scripts/protoc-gen-openapi.ts):
// the control API (/_pctl/, src/server/surfaces/control/routes.ts), OIDC discovery and OAuth sign-in
// (src/server/surfaces/oauth/oidc.ts, oauth.ts), the console's files (src/server/surfaces/console.ts), the
// MCP endpoint (src/server/surfaces/mcp/endpoint.ts) and the document itself. Each is `x-pctl-extension: true`: the platform API has none of them.
// The shapes are those of src/api/faults.ts, journal.ts and snapshots.ts.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const ERROR = { default: { $ref: '#/components/responses/Error' } };
const PUBLIC = { security: [] as Json[] };
const TAGS = { tags: ['pctl serve'], 'x-pctl-extension': true };
const schema = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (s: Json, description: string): Json => ({ description, content: { 'application/json': { schema: s } } });
const EMPTY_OBJECT = { type: 'object', additionalProperties: false };
const OWNER = 'For the data dir\'s owner only (its token, DATA_DIR/owner.token); anyone else gets 7 PERMISSION_DENIED.';
const OAUTH_ERROR = json(schema('pctl.OAuthError'), 'An OAuth error (RFC 6749 §5.2).');
const HTML = { description: 'An HTML page.', content: { 'text/html': { schema: { type: 'string' } } } };
const FORM = (properties: Record<string, Json>, required: string[]): Json => ({
  required: true,
  content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', properties, required } } },
});

const MCP_SESSION: Json = { name: 'mcp-session-id', in: 'header', description: 'The session, from the answer to initialize.', schema: { type: 'string' } };
const MCP_ANSWER: Json = {
  description: 'The JSON-RPC answer, as JSON or as server-sent events (the Accept header says which the client takes).',
  content: { 'application/json': { schema: { type: 'object' } }, 'text/event-stream': { schema: { type: 'string' } } },
};
const MCP_ERROR: Json = json({ type: 'object', required: ['jsonrpc', 'error'], properties: { jsonrpc: { type: 'string' }, error: { type: 'object', required: ['code', 'message'] } } }, 'A JSON-RPC error (no session, a session of another identity, a malformed message).');

function file(type: string, description: string): Json {
  return { get: { ...TAGS, ...PUBLIC, operationId: `console_${description.replace(/\W+/g, '_')}`, summary: `The console's ${description}.`, responses: { '200': { description, content: { [type]: { schema: { type: 'string' } } } } } } };
}

function nameParameter(description: string): Json {
  return { name: 'name', in: 'path', required: true, description, schema: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]{0,63}$' } };
}

export const EXTENSION_PATHS: Record<string, Json> = {
  '/openapi.json': {
    get: { ...TAGS, ...PUBLIC, operationId: 'serve_OpenApi', summary: 'This document (`pctl serve openapi` prints it).', responses: { '200': json({ type: 'object' }, 'The OpenAPI 3.1 document.') } },
  },
  '/': file('text/html', 'page'),
  '/console/console.js': file('text/javascript', 'script'),
  '/console/console.css': file('text/css', 'style sheet'),
  '/console/icon.svg': file('image/svg+xml', 'icon'),
  '/.well-known/openid-configuration': {
    get: { ...TAGS, ...PUBLIC, operationId: 'oidc_Discovery', summary: "OIDC discovery of serve's token issuer.", responses: { '200': json({ type: 'object', required: ['issuer', 'jwks_uri'], properties: { issuer: { type: 'string' }, jwks_uri: { type: 'string' } } }, 'The OpenID Provider Metadata.'), ...ERROR } },
  },
  '/.well-known/jwks.json': {
    get: { ...TAGS, ...PUBLIC, operationId: 'oidc_Jwks', summary: "The public keys that verify serve's tokens.", responses: { '200': json({ type: 'object', required: ['keys'], properties: { keys: { type: 'array', items: { type: 'object' } } } }, 'A JWK Set.'), ...ERROR } },
  },
  '/oauth/authorize': {
    get: { ...TAGS, ...PUBLIC, operationId: 'oauth_Authorize', summary: 'Sign-in (authorization code with PKCE): the page that asks for the owner token.', responses: { '200': HTML, '302': { description: 'Back to the redirect_uri, with a code or an error.' }, '400': HTML } },
    post: { ...TAGS, ...PUBLIC, operationId: 'oauth_AuthorizeSubmit', summary: 'Sign-in: the page\'s form.', requestBody: FORM({ csrf: { type: 'string' } }, []), responses: { '200': HTML, '302': { description: 'Back to the redirect_uri, with a code or an error.' }, '400': HTML, '401': HTML } },
  },
  '/oauth/token': {
    post: {
      ...TAGS, ...PUBLIC, operationId: 'oauth_Token', summary: 'A token for an authorization code (with its PKCE verifier) or an approved device code.',
      requestBody: FORM({ grant_type: { type: 'string', enum: ['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code'] }, code: { type: 'string' }, code_verifier: { type: 'string' }, device_code: { type: 'string' }, client_id: { type: 'string' }, redirect_uri: { type: 'string' } }, ['grant_type']),
      responses: { '200': json(schema('pctl.TokenResponse'), 'The tokens.'), '400': OAUTH_ERROR, '401': OAUTH_ERROR, ...ERROR },
    },
  },
  '/oauth/userinfo': {
    get: { ...TAGS, operationId: 'oauth_UserInfo', summary: 'Who the bearer token is.', responses: { '200': json({ type: 'object', required: ['sub', 'iss'], properties: { sub: { type: 'string' }, iss: { type: 'string' }, identity: { type: 'object', properties: { uid: { type: 'string' }, name: { type: 'string' } } } } }, 'The claims.'), ...ERROR } },
  },
  '/oauth/device_authorization': {
    post: {
      ...TAGS, ...PUBLIC, operationId: 'oauth_DeviceAuthorization', summary: 'Starts a device sign-in (RFC 8628).',
      requestBody: FORM({ client_id: { type: 'string' }, scope: { type: 'string' } }, []),
      responses: { '200': json({ type: 'object', required: ['device_code', 'user_code', 'verification_uri', 'expires_in', 'interval'], properties: { device_code: { type: 'string' }, user_code: { type: 'string' }, verification_uri: { type: 'string' }, verification_uri_complete: { type: 'string' }, expires_in: { type: 'integer' }, interval: { type: 'integer' } } }, 'The codes.'), '400': OAUTH_ERROR, ...ERROR },
    },
  },
  '/oauth/device': {
    get: { ...TAGS, ...PUBLIC, operationId: 'oauth_DeviceVerify', summary: 'The page where a device sign-in is approved.', responses: { '200': HTML, '400': HTML } },
    post: { ...TAGS, ...PUBLIC, operationId: 'oauth_DeviceVerifySubmit', summary: 'The page\'s form.', requestBody: FORM({ csrf: { type: 'string' } }, []), responses: { '200': HTML, '400': HTML, '401': HTML } },
  },
  '/mcp': {
    post: {
      ...TAGS, operationId: 'mcp_Post', summary: "serve's MCP endpoint (Streamable HTTP): initialize opens a session, then JSON-RPC messages in it (src/server/surfaces/mcp/endpoint.ts, docs/mcp.md).",
      parameters: [MCP_SESSION],
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['jsonrpc'], properties: { jsonrpc: { type: 'string', enum: ['2.0'] } } } } } },
      responses: { '200': MCP_ANSWER, '202': { description: 'A notification or response, accepted.' }, '4XX': MCP_ERROR, ...ERROR },
    },
    get: { ...TAGS, operationId: 'mcp_Stream', summary: "The session's stream of server messages.", parameters: [MCP_SESSION], responses: { '200': { description: 'Server-sent events.', content: { 'text/event-stream': { schema: { type: 'string' } } } }, '4XX': MCP_ERROR, ...ERROR } },
    delete: { ...TAGS, operationId: 'mcp_End', summary: 'Ends the session.', parameters: [MCP_SESSION], responses: { '200': { description: 'Ended.' }, '4XX': MCP_ERROR, ...ERROR } },
  },
  '/_pctl/faults': {
    get: { ...TAGS, operationId: 'control_ListFaults', summary: 'The fault and latency rules in force, with their hits.', description: OWNER, responses: { '200': json({ type: 'object', required: ['faults'], properties: { faults: { type: 'array', items: schema('pctl.FaultRule') } }, additionalProperties: false }, 'The rules.'), ...ERROR } },
    post: { ...TAGS, operationId: 'control_AddFault', summary: 'Adds a rule.', description: OWNER, requestBody: { required: true, content: { 'application/json': { schema: schema('pctl.FaultRule') } } }, responses: { '200': json(schema('pctl.FaultRule'), 'The rule, with its id.'), ...ERROR } },
    delete: { ...TAGS, operationId: 'control_ClearFaults', summary: 'Removes every rule.', description: OWNER, responses: { '200': json({ type: 'object', required: ['removed'], properties: { removed: { type: 'integer' } }, additionalProperties: false }, 'How many were removed.'), ...ERROR } },
  },
  '/_pctl/faults/{id}': {
    delete: { ...TAGS, operationId: 'control_RemoveFault', summary: 'Removes one rule.', description: OWNER, parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', examples: ['f1'] } }], responses: { '200': json(EMPTY_OBJECT, 'Removed.'), ...ERROR } },
  },
  '/_pctl/requests': {
    get: {
      ...TAGS, operationId: 'control_ListRequests', summary: 'The request journal: the last calls answered, oldest first.', description: OWNER,
      parameters: [
        { name: 'after', in: 'query', description: 'Only entries with a greater seq.', schema: { type: 'integer', minimum: 0 } },
        { name: 'limit', in: 'query', description: 'At most this many (the newest).', schema: { type: 'integer', minimum: 0 } },
        { name: 'wait', in: 'query', description: 'Seconds (up to 60) to hold the answer until an entry newer than `after` arrives.', schema: { type: 'integer', minimum: 0, maximum: 60 } },
      ],
      responses: { '200': json({ type: 'object', required: ['requests', 'last', 'size'], properties: { requests: { type: 'array', items: schema('pctl.JournalEntry') }, last: { type: 'integer' }, size: { type: 'integer' } }, additionalProperties: false }, 'The entries.'), ...ERROR },
    },
  },
  '/_pctl/snapshots': {
    get: { ...TAGS, operationId: 'control_ListSnapshots', summary: 'The snapshots of the data dir, by name.', description: OWNER, responses: { '200': json({ type: 'object', required: ['snapshots'], properties: { snapshots: { type: 'array', items: schema('pctl.Snapshot') } }, additionalProperties: false }, 'The snapshots.'), ...ERROR } },
    post: {
      ...TAGS, operationId: 'control_SaveSnapshot', summary: 'Saves the data as DATA_DIR/snapshots/NAME.db (consistent while serving).', description: OWNER,
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['name'], properties: { name: { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]{0,63}$' }, overwrite: { type: 'boolean' } } } } } },
      responses: { '200': json(schema('pctl.Snapshot'), 'The snapshot.'), ...ERROR },
    },
  },
  '/_pctl/snapshots/{name}:restore': {
    post: { ...TAGS, operationId: 'control_RestoreSnapshot', summary: "Replaces the data with the snapshot's, in one transaction.", description: OWNER, parameters: [nameParameter('The snapshot.')], responses: { '200': json(schema('pctl.Snapshot'), 'The snapshot restored.'), ...ERROR } },
  },
  '/_pctl/snapshots/{name}': {
    delete: { ...TAGS, operationId: 'control_DeleteSnapshot', summary: 'Removes a snapshot.', description: OWNER, parameters: [nameParameter('The snapshot.')], responses: { '200': json(EMPTY_OBJECT, 'Removed.'), ...ERROR } },
  },
  '/_pctl/v1-callers': {
    get: { ...TAGS, operationId: 'control_V1Callers', summary: 'Who still calls v1, from the journal: each v1 call with its callers and successor (docs/v1.md).', description: OWNER, responses: { '200': json({ type: 'object' }, 'The v1 callers.'), ...ERROR } },
  },
  '/_pctl/events': {
    get: {
      ...TAGS, operationId: 'control_WatchEvents', summary: 'The change events as they commit: a long poll, resumable from a seq (pctl events watch, docs/events.md).', description: OWNER,
      parameters: [
        { name: 'after', in: 'query', description: 'Only events with a greater seq (default: the last one now, so only new events).', schema: { type: 'integer', minimum: 0 } },
        { name: 'limit', in: 'query', description: 'At most this many.', schema: { type: 'integer', minimum: 0, maximum: 500 } },
        { name: 'wait', in: 'query', description: 'Seconds (up to 60) to hold the answer until a matching event commits.', schema: { type: 'integer', minimum: 0, maximum: 60 } },
        { name: 'descendants_of', in: 'query', description: "Only events of this group or below (its uid).", schema: { type: 'string' } },
        { name: 'type', in: 'query', description: 'A glob over the CloudEvent type (`*` any run of characters).', schema: { type: 'string', examples: ['dev.chainguard.api.iam.group.*'] } },
      ],
      responses: { '200': json({ type: 'object', required: ['events', 'last'], properties: { events: { type: 'array', items: { type: 'object', required: ['seq', 'id', 'type', 'source', 'subject', 'group', 'time', 'data'] } }, last: { type: 'integer' } }, additionalProperties: false }, 'The events, and the seq to resume after.'), ...ERROR },
    },
  },
  '/_pctl/deliveries': {
    get: {
      ...TAGS, operationId: 'control_ListDeliveries', summary: 'Webhook deliveries: attempts, last status, next retry (pctl events deliveries).', description: OWNER,
      parameters: [
        { name: 'subscription', in: 'query', description: "Only this subscription's deliveries (its uid).", schema: { type: 'string' } },
        { name: 'state', in: 'query', description: 'Only deliveries in this state.', schema: { type: 'string', enum: ['pending', 'delivered', 'failed'] } },
        { name: 'limit', in: 'query', description: 'At most this many (default 100).', schema: { type: 'integer', minimum: 0, maximum: 1000 } },
      ],
      responses: { '200': json({ type: 'object', required: ['deliveries'], properties: { deliveries: { type: 'array', items: schema('pctl.Delivery') } }, additionalProperties: false }, 'The deliveries.'), ...ERROR },
    },
  },
  '/_pctl/deliveries/{id}:redeliver': {
    post: {
      ...TAGS, operationId: 'control_Redeliver', summary: 'Sends a delivery again now (a failed one gets a fresh set of attempts).', description: OWNER,
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9]{1,15}$', examples: ['1'] } }],
      responses: { '200': json(schema('pctl.Delivery'), 'The delivery, pending again.'), ...ERROR },
    },
  },
  '/sts/revoke_refresh_token': {
    post: {
      ...TAGS, operationId: 'serve_RevokeRefreshToken',
      summary: 'Revokes the sign-in of the refresh token sent as the bearer token (`pctl auth logout`): its refresh tokens and the tokens exchanged from them stop working.',
      responses: { '200': json(EMPTY_OBJECT, 'Revoked (an unknown token too: nothing left to revoke).'), ...ERROR },
    },
  },
  '/_pctl/reset': {
    post: { ...TAGS, operationId: 'control_Reset', summary: 'Back to the data the data dir was bootstrapped with (its seed, or the plain bootstrap).', description: OWNER, responses: { '200': json(EMPTY_OBJECT, 'Reset.'), ...ERROR } },
  },
};

export const EXTENSION_SCHEMAS: Record<string, Json> = {
  'pctl.Delivery': {
    type: 'object', description: 'One CloudEvent on its way to one subscription (src/server/surfaces/events/).', required: ['id', 'eventId', 'seq', 'type', 'subject', 'subscription', 'sink', 'state', 'attempts', 'updateTime'],
    properties: {
      id: { type: 'integer' }, eventId: { type: 'string', description: 'Ce-Id, the same on every attempt.' }, seq: { type: 'integer' }, type: { type: 'string' }, subject: { type: 'string' },
      subscription: { type: 'string' }, sink: { type: 'string' }, state: { type: 'string', enum: ['pending', 'delivered', 'failed'] }, attempts: { type: 'integer' },
      lastStatus: { type: 'integer' }, lastError: { type: 'string' }, nextAttemptTime: { type: 'string', format: 'date-time' }, updateTime: { type: 'string', format: 'date-time' },
    },
    additionalProperties: false,
  },
  'pctl.FaultRule': {
    type: 'object', description: 'A fault or latency rule (src/api/faults.ts).', required: ['effect'], additionalProperties: false,
    properties: {
      id: { type: 'string', readOnly: true, examples: ['f1'] },
      method: { type: 'string', description: 'An HTTP method, or `*` (default).' },
      path: { type: 'string', description: 'A glob over the request path (`*` any run of characters).', examples: ['/iam/v2/groups*'] },
      rpc: { type: 'string', description: 'A glob over the RPC of a gRPC or Connect call.', examples: ['GroupsService/List*'] },
      effect: { type: 'string', enum: ['error', 'latency', 'reset', 'stall'] },
      code: { type: 'integer', minimum: 1, maximum: 16, description: 'effect error: the AIP-193 code.' },
      retryAfterSeconds: { type: 'number', minimum: 0 },
      latencyMs: { type: 'array', items: { type: 'number', minimum: 0 }, minItems: 2, maxItems: 2, description: 'effect latency: [min, max] milliseconds.' },
      probability: { type: 'number', exclusiveMinimum: 0, maximum: 1 },
      times: { type: 'integer', minimum: 1 },
      seed: { type: 'integer' },
      hits: { type: 'integer', readOnly: true },
    },
  },
  'pctl.JournalEntry': {
    type: 'object', description: 'A call serve answered (src/api/journal.ts).', required: ['seq', 'time', 'method', 'path', 'status', 'durationMs', 'matched'], additionalProperties: false,
    properties: {
      seq: { type: 'integer' }, time: { type: 'string', format: 'date-time' }, method: { type: 'string' }, path: { type: 'string' },
      rpc: { type: 'string' }, status: { type: 'integer' }, durationMs: { type: 'number' }, identity: { type: 'string' }, matched: { type: 'boolean' },
      fault: { type: 'object', required: ['id', 'effect'], properties: { id: { type: 'string' }, effect: { type: 'string' } } },
      requestBody: { type: 'string' }, responseBody: { type: 'string' },
    },
  },
  'pctl.Snapshot': {
    type: 'object', required: ['name', 'sizeBytes', 'createTime'], additionalProperties: false,
    properties: { name: { type: 'string' }, sizeBytes: { type: 'integer' }, createTime: { type: 'string', format: 'date-time' } },
  },
  'pctl.TokenResponse': {
    type: 'object', required: ['access_token', 'token_type', 'expires_in'],
    properties: { access_token: { type: 'string' }, id_token: { type: 'string' }, token_type: { type: 'string', enum: ['Bearer'] }, expires_in: { type: 'integer' } },
  },
  'pctl.OAuthError': {
    type: 'object', required: ['error'],
    properties: { error: { type: 'string', examples: ['invalid_grant'] }, error_description: { type: 'string' } },
  },
};
