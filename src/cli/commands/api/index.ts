// pctl api [METHOD] PATH: a request to any endpoint, like gh api.
import { defineCommand, flag } from '../../command.js';

export const apiFlags = {
  method: flag.string('-X, --method <method>', 'the HTTP method (default GET, or POST with fields or --input), as in gh api'),
  rawField: flag.list('-f, --raw-field <key=value>', 'add a string field to the JSON body (repeatable; group[name]=x nests, tags[]=a appends)'),
  field: flag.list('-F, --field <key=value>', 'add a typed field: true, false, null and numbers are JSON, @file reads a file, @- stdin (repeatable)'),
  input: flag.string('--input <file>', 'send this file as the request body (- for stdin)', { complete: 'file' }),
  query: flag.list('-q, --query <key=value>', 'add a query parameter (repeatable)'),
  header: flag.list('-H, --header <header>', "add a request header, 'Name: value' (repeatable)"),
  paginate: flag.bool('--paginate', 'follow nextPageToken and print one document with every item'),
  include: flag.bool('-i, --include', 'print the status line and response headers before the body'),
};

export const apiCommand = defineCommand({
  name: 'api',
  args: [
    { name: '<method>', description: 'HTTP method (GET, POST, PATCH, DELETE …), or the PATH for a GET' },
    { name: '[path]', description: 'path below the API URL, e.g. /iam/v2/groups (a ?query is kept)' },
  ],
  flags: apiFlags,
  help: {
    summary: 'send a request to any endpoint (like gh api): pctl api METHOD PATH, or pctl api PATH for GET',
    description:
      'Send a request to any endpoint of the API, with the configured URL and token, and print the response body. ' +
      'Useful for endpoints that have no command yet, and for scripting.',
    examples: [
      ['every group, following page tokens', 'pctl api /iam/v2/groups --paginate -q page_size=50'],
      ['create a group with a JSON body built from fields', "pctl api POST /iam/v2/groups -f parent=$ORG -f 'group[name]=tools'"],
      ['update one field', "pctl api -X PATCH /registry/v2/repos/$REPO -q updateMask=description -f description='web images'"],
    ],
  },
  notes:
    '\nWithout METHOD a request is a GET, or a POST when it has fields or --input. On a GET, fields become' +
    '\nquery parameters (as in gh). The body is printed pretty on a terminal and as received in a pipe.' +
    '\nAn error status prints the error on stderr and exits 1, 3 or 4 like any command (with -i the' +
    '\nresponse is printed on stdout as well).',
  load: () => import('./run.js'),
});
