# fish completion for pctl. Generated from the command tree by `npm run gen` (the same as `pctl completion fish`); do not edit.
# Install: pctl completion fish > ~/.config/fish/completions/pctl.fish

function __pctl_sub --description "the path of subcommand WORD of PATH"
    switch "$argv[1]:$argv[2]"
        case ':groups'
            echo 'groups'
        case ':identities'
            echo 'identities'
        case ':roles'
            echo 'roles'
        case ':role-bindings'
            echo 'role-bindings'
        case ':identity-providers'
            echo 'identity-providers'
        case ':invites'
            echo 'invites'
        case ':account-associations'
            echo 'account-associations'
        case ':repos'
            echo 'repos'
        case ':tags'
            echo 'tags'
        case ':advisories'
            echo 'advisories'
        case ':api'
            echo 'api'
        case ':auth'
            echo 'auth'
        case ':config'
            echo 'config'
        case ':serve'
            echo 'serve'
        case ':completion'
            echo 'completion'
        case 'groups:list' 'groups:ls'
            echo 'groups list'
        case 'groups:get' 'groups:describe'
            echo 'groups get'
        case 'groups:create'
            echo 'groups create'
        case 'groups:update'
            echo 'groups update'
        case 'groups:delete' 'groups:rm'
            echo 'groups delete'
        case 'identities:list' 'identities:ls'
            echo 'identities list'
        case 'identities:get' 'identities:describe'
            echo 'identities get'
        case 'identities:create'
            echo 'identities create'
        case 'identities:update'
            echo 'identities update'
        case 'identities:delete' 'identities:rm'
            echo 'identities delete'
        case 'roles:list' 'roles:ls'
            echo 'roles list'
        case 'roles:get' 'roles:describe'
            echo 'roles get'
        case 'roles:create'
            echo 'roles create'
        case 'roles:update'
            echo 'roles update'
        case 'roles:delete' 'roles:rm'
            echo 'roles delete'
        case 'role-bindings:list' 'role-bindings:ls'
            echo 'role-bindings list'
        case 'role-bindings:get' 'role-bindings:describe'
            echo 'role-bindings get'
        case 'role-bindings:create'
            echo 'role-bindings create'
        case 'role-bindings:delete' 'role-bindings:rm'
            echo 'role-bindings delete'
        case 'identity-providers:list' 'identity-providers:ls'
            echo 'identity-providers list'
        case 'identity-providers:get' 'identity-providers:describe'
            echo 'identity-providers get'
        case 'identity-providers:create'
            echo 'identity-providers create'
        case 'identity-providers:update'
            echo 'identity-providers update'
        case 'identity-providers:delete' 'identity-providers:rm'
            echo 'identity-providers delete'
        case 'invites:list' 'invites:ls'
            echo 'invites list'
        case 'invites:get' 'invites:describe'
            echo 'invites get'
        case 'invites:create'
            echo 'invites create'
        case 'invites:delete' 'invites:rm'
            echo 'invites delete'
        case 'invites:redeem'
            echo 'invites redeem'
        case 'account-associations:list' 'account-associations:ls'
            echo 'account-associations list'
        case 'account-associations:get' 'account-associations:describe'
            echo 'account-associations get'
        case 'account-associations:create'
            echo 'account-associations create'
        case 'account-associations:update'
            echo 'account-associations update'
        case 'account-associations:delete' 'account-associations:rm'
            echo 'account-associations delete'
        case 'account-associations:check'
            echo 'account-associations check'
        case 'repos:list' 'repos:ls'
            echo 'repos list'
        case 'repos:get' 'repos:describe'
            echo 'repos get'
        case 'repos:update'
            echo 'repos update'
        case 'tags:list' 'tags:ls'
            echo 'tags list'
        case 'advisories:list' 'advisories:ls'
            echo 'advisories list'
        case 'advisories:get' 'advisories:describe'
            echo 'advisories get'
        case 'auth:login'
            echo 'auth login'
        case 'auth:status'
            echo 'auth status'
        case 'auth:token'
            echo 'auth token'
        case 'auth:logout'
            echo 'auth logout'
        case 'config:list' 'config:ls'
            echo 'config list'
        case 'config:get' 'config:describe'
            echo 'config get'
        case 'config:set'
            echo 'config set'
        case 'config:use'
            echo 'config use'
        case 'config:delete' 'config:rm'
            echo 'config delete'
        case 'serve:export'
            echo 'serve export'
        case 'serve:token'
            echo 'serve token'
        case 'serve:reset'
            echo 'serve reset'
    end
end

function __pctl_subs --description "the subcommands of PATH, with summaries"
    switch "$argv[1]"
        case ''
            printf '%s\t%s\n' 'groups' 'manage groups (organizations are root groups)' 'identities' 'manage identities (who may get tokens, matched on OIDC claims)' 'roles' 'manage roles: the built-in ones and custom sets of capabilities' 'role-bindings' 'grant roles to identities within a group' 'identity-providers' 'single sign-on: the OIDC identity providers of groups' 'invites' 'invite people to a group with a role, and redeem invites' 'account-associations' 'the cloud accounts a group is tied to (one association per group)' 'repos' 'image repositories (they live in groups)' 'tags' 'image tags of a repo' 'advisories' 'vulnerability advisories' 'api' 'send a request to any endpoint (like gh api): pctl api METHOD PATH, or pctl api PATH for GET' 'auth' 'sign in to the API and manage the saved token' 'config' 'manage profiles (API URL and token) in PCTL_CONFIG_DIR' 'serve' 'run the local, file-backed implementation of the API' 'completion' 'print the shell completion script for bash, zsh or fish'
        case 'groups'
            printf '%s\t%s\n' 'list' 'list groups' 'get' 'show a group' 'create' 'create a group' 'update' 'change a group: only the fields given are sent' 'delete' 'delete a group (it must be empty)'
        case 'identities'
            printf '%s\t%s\n' 'list' 'list identities' 'get' 'show an identity' 'create' 'create an identity' 'update' 'change an identity: only the fields given are sent' 'delete' 'delete an identity'
        case 'roles'
            printf '%s\t%s\n' 'list' 'list roles' 'get' 'show a role' 'create' 'create a custom role on a group' 'update' 'change a custom role: only the fields given are sent' 'delete' 'delete a custom role (it must not be bound)'
        case 'role-bindings'
            printf '%s\t%s\n' 'list' 'list role bindings' 'get' 'show a role binding' 'create' 'bind a role to an identity in a group' 'delete' 'delete a role binding'
        case 'identity-providers'
            printf '%s\t%s\n' 'list' 'list identity providers' 'get' 'show an identity provider' 'create' 'add an OIDC identity provider to a group' 'update' 'change an identity provider: only the fields given are sent' 'delete' 'delete an identity provider'
        case 'invites'
            printf '%s\t%s\n' 'list' 'list invites' 'get' 'show an invite' 'create' 'create an invite and print its code (shown only this once)' 'delete' 'delete (revoke) an invite' 'redeem' 'redeem an invite: bind yourself to its group with its role'
        case 'account-associations'
            printf '%s\t%s\n' 'list' 'list account associations' 'get' 'show an account association' 'create' 'tie a group to its cloud accounts' 'update' 'change an account association: only the fields given are sent' 'delete' 'delete an account association' 'check' 'is a provider ready? (READY or NOT_READY, with the reason)'
        case 'repos'
            printf '%s\t%s\n' 'list' 'list repos' 'get' 'show a repo' 'update' 'change a repo: only the fields given are sent'
        case 'tags'
            printf '%s\t%s\n' 'list' 'list the tags of a repo'
        case 'advisories'
            printf '%s\t%s\n' 'list' 'list advisories' 'get' 'show an advisory'
        case 'auth'
            printf '%s\t%s\n' 'login' 'sign in with a browser (authorization code + PKCE) and save the token in the profile' 'status' 'show the profile, API URL, issuer, subject, identity and expiry of the token (never the token)' 'token' 'print the token, for $(pctl auth token)' 'logout' 'remove the token from the profile'
        case 'config'
            printf '%s\t%s\n' 'list' 'list profiles; * marks the current one' 'get' 'show a profile or one of its values' 'set' 'set a profile value, creating the profile; the token is read from stdin so that it stays out of shell history' 'use' 'make a profile the current one' 'delete' 'delete a profile'
        case 'serve'
            printf '%s\t%s\n' 'export' 'print the data dir as a seed file (YAML) on stdout' 'token' 'print a bearer token for an identity of serve\'s own issuer' 'reset' 'delete all data in the data dir'
    end
end

function __pctl_flags --description "the flags PATH accepts, with descriptions"
    switch "$argv[1]"
        case 'groups list'
            printf '%s\t%s\n' '--limit' 'print at most N items (default: all)' '--page-size' 'items per request, 1-200' '--order-by' 'sort order, e.g. name, "name desc", "created_at desc"' '--skip' 'skip the first N matches' '--page-token' 'start from this page token' '--descendants-of' 'only groups anywhere below this group or organization' '--children-of' 'only groups directly in this group' '--name' 'only groups with exactly this name'
        case 'groups create'
            printf '%s\t%s\n' '--parent' 'uid of the parent group or organization' '--description' 'description'
        case 'groups update'
            printf '%s\t%s\n' '--name' 'new name' '--description' 'new description ("" clears it)'
        case 'identities list'
            printf '%s\t%s\n' '--limit' 'print at most N items (default: all)' '--page-size' 'items per request, 1-200' '--order-by' 'sort order, e.g. name, "name desc", "created_at desc"' '--skip' 'skip the first N matches' '--page-token' 'start from this page token' '--group' 'only identities of this group (same as --children-of)' '--children-of' 'only identities directly in this group' '--descendants-of' 'only identities anywhere below this group or organization'
        case 'identities create'
            printf '%s\t%s\n' '--parent' 'uid of the group the identity belongs to' '--issuer' 'token issuer URL' '--subject' 'the exact subject claim to match' '--description' 'description'
        case 'identities update'
            printf '%s\t%s\n' '--name' 'new name' '--description' 'new description ("" clears it)' '--issuer' 'new token issuer URL' '--subject' 'new subject claim'
        case 'roles list'
            printf '%s\t%s\n' '--limit' 'print at most N items (default: all)' '--page-size' 'items per request, 1-200' '--order-by' 'sort order, e.g. name, "name desc", "created_at desc"' '--skip' 'skip the first N matches' '--page-token' 'start from this page token' '--capabilities' 'show each role\'s capabilities'
        case 'roles create'
            printf '%s\t%s\n' '--parent' 'the group whose role bindings (and its descendants\') may use the role' '--capability' 'a capability, e.g. groups.list (repeatable, or comma-separated)' '--description' 'description'
        case 'roles update'
            printf '%s\t%s\n' '--name' 'new name' '--description' 'new description ("" clears it)' '--capability' 'the new set of capabilities (repeatable, or comma-separated; replaces the old set)'
        case 'role-bindings list'
            printf '%s\t%s\n' '--limit' 'print at most N items (default: all)' '--page-size' 'items per request, 1-200' '--order-by' 'sort order, e.g. name, "name desc", "created_at desc"' '--skip' 'skip the first N matches' '--page-token' 'start from this page token' '--group' 'only role bindings of this group (same as --children-of)' '--children-of' 'only role bindings directly in this group' '--descendants-of' 'only role bindings anywhere below this group or organization'
        case 'role-bindings create'
            printf '%s\t%s\n' '--parent' 'uid of the group the binding applies to' '--identity' 'uid of the identity' '--role' 'role uid or name (e.g. viewer)'
        case 'identity-providers list'
            printf '%s\t%s\n' '--limit' 'print at most N items (default: all)' '--page-size' 'items per request, 1-200' '--order-by' 'sort order, e.g. name, "name desc", "created_at desc"' '--skip' 'skip the first N matches' '--page-token' 'start from this page token' '--group' 'only identity providers of this group (same as --children-of)' '--children-of' 'only identity providers directly in this group' '--descendants-of' 'only identity providers anywhere below this group or organization'
        case 'identity-providers create'
            printf '%s\t%s\n' '--parent' 'the group whose members sign in through it' '--issuer' 'the OIDC issuer URL (https)' '--client-id' 'the OIDC client id' '--default-role' 'the role first-time users get: a uid or a name (e.g. viewer)' '--correlation-rule' 'how users are matched, fixed after create: sub or oid (default sub)' '--description' 'description' '--pkce' 'use PKCE in the sign-in flow' '--scope' 'an additional OIDC scope to request (repeatable; on update, replaces the set)' '--groups-claim' 'the token claim that lists the user\'s groups' '--client-secret' 'read the client secret from a prompt (or stdin when it is not a terminal); never shown again'
        case 'identity-providers update'
            printf '%s\t%s\n' '--name' 'new name' '--description' 'new description ("" clears it)' '--issuer' 'new OIDC issuer URL' '--client-id' 'new OIDC client id' '--default-role' 'new default role: a uid or a name' '--pkce' 'use PKCE in the sign-in flow, or not' '--scope' 'an additional OIDC scope to request (repeatable; on update, replaces the set)' '--groups-claim' 'the token claim that lists the user\'s groups' '--client-secret' 'read the client secret from a prompt (or stdin when it is not a terminal); never shown again'
        case 'invites list'
            printf '%s\t%s\n' '--limit' 'print at most N items (default: all)' '--page-size' 'items per request, 1-200' '--order-by' 'sort order, e.g. name, "name desc", "created_at desc"' '--skip' 'skip the first N matches' '--page-token' 'start from this page token' '--group' 'only invites of this group (same as --children-of)' '--children-of' 'only invites directly in this group' '--descendants-of' 'only invites anywhere below this group or organization' '--key-id' 'only the invite whose code has this key id (repeatable: any of them)'
        case 'invites create'
            printf '%s\t%s\n' '--parent' 'the group to invite into (uid, name or uid suffix)' '--role' 'the role the invitee gets: a uid or a name (e.g. viewer)' '--email' 'only a token with this email claim may redeem the invite' '--ttl' 'how long the invite stays valid: 30m, 12h, 7d … (1 minute to 30 days)' '--single-use' 'the first redeem consumes the invite'
        case 'account-associations list'
            printf '%s\t%s\n' '--limit' 'print at most N items (default: all)' '--page-size' 'items per request, 1-200' '--order-by' 'sort order, e.g. name, "name desc", "created_at desc"' '--skip' 'skip the first N matches' '--page-token' 'start from this page token' '--descendants-of' 'only account associations anywhere below this group or organization' '--children-of' 'only account associations directly in this group' '--name' 'only account associations with exactly this name'
        case 'account-associations create'
            printf '%s\t%s\n' '--parent' 'the group (its uid becomes the association\'s uid)' '--description' 'description' '--aws-account' 'AWS account id (12 digits)' '--gcp-project-id' 'Google Cloud project id (with --gcp-project-number)' '--gcp-project-number' 'Google Cloud project number (with --gcp-project-id)' '--azure-tenant' 'Azure tenant id' '--azure-client' 'an Azure client id by name (repeatable; on update, replaces the set)'
        case 'account-associations update'
            printf '%s\t%s\n' '--name' 'new name' '--description' 'new description ("" clears it)' '--aws-account' 'AWS account id (12 digits)' '--gcp-project-id' 'Google Cloud project id (with --gcp-project-number)' '--gcp-project-number' 'Google Cloud project number (with --gcp-project-id)' '--azure-tenant' 'Azure tenant id' '--azure-client' 'an Azure client id by name (repeatable; on update, replaces the set)'
        case 'account-associations check'
            printf '%s\t%s\n' '--provider' 'the provider to check'
        case 'repos list'
            printf '%s\t%s\n' '--limit' 'print at most N items (default: all)' '--page-size' 'items per request, 1-200' '--order-by' 'sort order, e.g. name, "name desc", "created_at desc"' '--skip' 'skip the first N matches' '--page-token' 'start from this page token' '--descendants-of' 'only repos anywhere below this group or organization' '--children-of' 'only repos directly in this group' '--name' 'only repos with exactly this name'
        case 'repos update'
            printf '%s\t%s\n' '--name' 'new name' '--description' 'new description ("" clears it)'
        case 'tags list'
            printf '%s\t%s\n' '--limit' 'print at most N items (default: all)' '--page-size' 'items per request, 1-200' '--order-by' 'sort order, e.g. name, "name desc", "created_at desc"' '--skip' 'skip the first N matches' '--page-token' 'start from this page token' '--repo' 'uid of the repo (required)' '--deprecated' 'only end-of-life tags (filtered here: the API has no such filter; every page is still read)'
        case 'advisories list'
            printf '%s\t%s\n' '--limit' 'print at most N items (default: all)' '--page-size' 'items per request, 1-200' '--order-by' 'sort order, e.g. name, "name desc", "created_at desc"' '--skip' 'skip the first N matches' '--page-token' 'start from this page token' '--artifact' 'only advisories for this artifact (repeatable: any of them)' '--advisory-id' 'only this advisory id, e.g. CGA-2026-0001 (repeatable: any of them)'
        case 'api'
            printf '%s\t%s\n' '-f' 'add a string field to the JSON body (repeatable; group[name]=x nests, tags[]=a appends)' '--raw-field' 'add a string field to the JSON body (repeatable; group[name]=x nests, tags[]=a appends)' '-F' 'add a typed field: true, false, null and numbers are JSON, @file reads a file, @- stdin (repeatable)' '--field' 'add a typed field: true, false, null and numbers are JSON, @file reads a file, @- stdin (repeatable)' '--input' 'send this file as the request body (- for stdin)' '-q' 'add a query parameter (repeatable)' '--query' 'add a query parameter (repeatable)' '-H' 'add a request header, \'Name: value\' (repeatable)' '--header' 'add a request header, \'Name: value\' (repeatable)' '--paginate' 'follow nextPageToken and print one document with every item' '-i' 'print the status line and response headers before the body' '--include' 'print the status line and response headers before the body'
        case 'auth login'
            printf '%s\t%s\n' '--no-browser' 'only print the sign-in URL, do not open a browser' '--with-token' 'read a token from stdin instead (CI), check it against the API and save it'
        case 'config get'
            printf '%s\t%s\n' '--show-token' 'print the token instead of ***'
        case 'serve'
            printf '%s\t%s\n' '--host' 'interface to listen on' '--port' 'port to listen on (0 picks a free port)' '--data' 'data directory' '--seed' 'load groups, identities, repos, tags and advisories from a YAML or JSON file into an empty data dir' '--demo' 'load the built-in demo data set into an empty data dir' '--log' 'log each request to stderr (tokens masked)' '--rate-limit' 'requests per caller (identity, else client address): RATE/UNIT[,BURST] with UNIT s, m or h, e.g. 50/s or 6000/m,200; or off (default: 100/s)' '--trust-issuer' 'also accept tokens of another issuer, checked offline against its JWKS file, for identities that name it (repeatable)' '--owner-token-ttl' 'lifetime of the owner token in DIR/owner.token, e.g. 12h or 7d (default 30d, at most 90d)'
        case 'serve export'
            printf '%s\t%s\n' '--data' 'data directory' '--host' 'interface to listen on' '--port' 'port to listen on (0 picks a free port)' '--data' 'data directory' '--seed' 'load groups, identities, repos, tags and advisories from a YAML or JSON file into an empty data dir' '--demo' 'load the built-in demo data set into an empty data dir' '--log' 'log each request to stderr (tokens masked)' '--rate-limit' 'requests per caller (identity, else client address): RATE/UNIT[,BURST] with UNIT s, m or h, e.g. 50/s or 6000/m,200; or off (default: 100/s)' '--trust-issuer' 'also accept tokens of another issuer, checked offline against its JWKS file, for identities that name it (repeatable)' '--owner-token-ttl' 'lifetime of the owner token in DIR/owner.token, e.g. 12h or 7d (default 30d, at most 90d)'
        case 'serve token'
            printf '%s\t%s\n' '--identity' 'identity uid (its claimMatch.issuer must be this serve); default: the data dir\'s owner' '--ttl' 'lifetime, e.g. 30m, 1h, 7d (at most 90d)' '--data' 'data directory' '--host' 'interface to listen on' '--port' 'port to listen on (0 picks a free port)' '--data' 'data directory' '--seed' 'load groups, identities, repos, tags and advisories from a YAML or JSON file into an empty data dir' '--demo' 'load the built-in demo data set into an empty data dir' '--log' 'log each request to stderr (tokens masked)' '--rate-limit' 'requests per caller (identity, else client address): RATE/UNIT[,BURST] with UNIT s, m or h, e.g. 50/s or 6000/m,200; or off (default: 100/s)' '--trust-issuer' 'also accept tokens of another issuer, checked offline against its JWKS file, for identities that name it (repeatable)' '--owner-token-ttl' 'lifetime of the owner token in DIR/owner.token, e.g. 12h or 7d (default 30d, at most 90d)'
        case 'serve reset'
            printf '%s\t%s\n' '--data' 'data directory' '--host' 'interface to listen on' '--port' 'port to listen on (0 picks a free port)' '--data' 'data directory' '--seed' 'load groups, identities, repos, tags and advisories from a YAML or JSON file into an empty data dir' '--demo' 'load the built-in demo data set into an empty data dir' '--log' 'log each request to stderr (tokens masked)' '--rate-limit' 'requests per caller (identity, else client address): RATE/UNIT[,BURST] with UNIT s, m or h, e.g. 50/s or 6000/m,200; or off (default: 100/s)' '--trust-issuer' 'also accept tokens of another issuer, checked offline against its JWKS file, for identities that name it (repeatable)' '--owner-token-ttl' 'lifetime of the owner token in DIR/owner.token, e.g. 12h or 7d (default 30d, at most 90d)'
    end
    printf '%s\t%s\n' '-V' 'output the version number' '--version' 'output the version number' '-o' 'output format' '--output' 'output format' '--profile' 'saved profile to use (env PCTL_PROFILE)' '--api-url' 'API base URL, overrides the profile (env PCTL_API_URL)' '--timeout' 'connect and request timeout, e.g. 10s, 500ms, 2m (default 30s)' '--retries' 'retries of a failed GET, DELETE or masked PATCH on connection errors, 502, 503, 504, and of any request on 429 (default 3; 0 disables)' '--jq' 'filter the JSON output through jq (implies -o json; strings print raw, e.g. --jq \'.[].name\')' '--debug' 'trace HTTP requests to stderr, tokens masked (env PCTL_DEBUG=1; PCTL_DEBUG=api adds bodies)' '--no-color' 'no ANSI color (env NO_COLOR)' '-y' 'do not ask for confirmation on destructive commands' '--yes' 'do not ask for confirmation on destructive commands' '-h' 'show help for the command' '--help' 'show help for the command'
end

function __pctl_flag --description "what a flag's value takes: value, file, dir, live, 'choice A B', or nothing"
    switch "$argv[1] $argv[2]"
        case 'groups list --limit' 'groups list --page-size' 'groups list --order-by' 'groups list --skip' 'groups list --page-token' 'groups list --name'
            echo 'value'
        case 'groups list --descendants-of' 'groups list --children-of'
            echo 'live'
        case 'groups create --parent'
            echo 'live'
        case 'groups create --description'
            echo 'value'
        case 'groups update --name' 'groups update --description'
            echo 'value'
        case 'identities list --limit' 'identities list --page-size' 'identities list --order-by' 'identities list --skip' 'identities list --page-token'
            echo 'value'
        case 'identities list --group' 'identities list --children-of' 'identities list --descendants-of'
            echo 'live'
        case 'identities create --parent'
            echo 'live'
        case 'identities create --issuer' 'identities create --subject' 'identities create --description'
            echo 'value'
        case 'identities update --name' 'identities update --description' 'identities update --issuer' 'identities update --subject'
            echo 'value'
        case 'roles list --limit' 'roles list --page-size' 'roles list --order-by' 'roles list --skip' 'roles list --page-token'
            echo 'value'
        case 'roles create --parent'
            echo 'live'
        case 'roles create --capability' 'roles create --description'
            echo 'value'
        case 'roles update --name' 'roles update --description' 'roles update --capability'
            echo 'value'
        case 'role-bindings list --limit' 'role-bindings list --page-size' 'role-bindings list --order-by' 'role-bindings list --skip' 'role-bindings list --page-token'
            echo 'value'
        case 'role-bindings list --group' 'role-bindings list --children-of' 'role-bindings list --descendants-of'
            echo 'live'
        case 'role-bindings create --parent' 'role-bindings create --identity' 'role-bindings create --role'
            echo 'live'
        case 'identity-providers list --limit' 'identity-providers list --page-size' 'identity-providers list --order-by' 'identity-providers list --skip' 'identity-providers list --page-token'
            echo 'value'
        case 'identity-providers list --group' 'identity-providers list --children-of' 'identity-providers list --descendants-of'
            echo 'live'
        case 'identity-providers create --parent' 'identity-providers create --default-role'
            echo 'live'
        case 'identity-providers create --issuer' 'identity-providers create --client-id' 'identity-providers create --description' 'identity-providers create --scope' 'identity-providers create --groups-claim'
            echo 'value'
        case 'identity-providers create --correlation-rule'
            echo 'choice sub oid'
        case 'identity-providers update --name' 'identity-providers update --description' 'identity-providers update --issuer' 'identity-providers update --client-id' 'identity-providers update --scope' 'identity-providers update --groups-claim'
            echo 'value'
        case 'identity-providers update --default-role'
            echo 'live'
        case 'identity-providers update --pkce'
            echo 'choice on off'
        case 'invites list --limit' 'invites list --page-size' 'invites list --order-by' 'invites list --skip' 'invites list --page-token' 'invites list --key-id'
            echo 'value'
        case 'invites list --group' 'invites list --children-of' 'invites list --descendants-of'
            echo 'live'
        case 'invites create --parent' 'invites create --role'
            echo 'live'
        case 'invites create --email' 'invites create --ttl'
            echo 'value'
        case 'account-associations list --limit' 'account-associations list --page-size' 'account-associations list --order-by' 'account-associations list --skip' 'account-associations list --page-token' 'account-associations list --name'
            echo 'value'
        case 'account-associations list --descendants-of' 'account-associations list --children-of'
            echo 'live'
        case 'account-associations create --parent'
            echo 'live'
        case 'account-associations create --description' 'account-associations create --aws-account' 'account-associations create --gcp-project-id' 'account-associations create --gcp-project-number' 'account-associations create --azure-tenant' 'account-associations create --azure-client'
            echo 'value'
        case 'account-associations update --name' 'account-associations update --description' 'account-associations update --aws-account' 'account-associations update --gcp-project-id' 'account-associations update --gcp-project-number' 'account-associations update --azure-tenant' 'account-associations update --azure-client'
            echo 'value'
        case 'account-associations check --provider'
            echo 'choice aws gcp azure'
        case 'repos list --limit' 'repos list --page-size' 'repos list --order-by' 'repos list --skip' 'repos list --page-token' 'repos list --name'
            echo 'value'
        case 'repos list --descendants-of' 'repos list --children-of'
            echo 'live'
        case 'repos update --name' 'repos update --description'
            echo 'value'
        case 'tags list --limit' 'tags list --page-size' 'tags list --order-by' 'tags list --skip' 'tags list --page-token'
            echo 'value'
        case 'tags list --repo'
            echo 'live'
        case 'advisories list --limit' 'advisories list --page-size' 'advisories list --order-by' 'advisories list --skip' 'advisories list --page-token' 'advisories list --artifact' 'advisories list --advisory-id'
            echo 'value'
        case 'api -f' 'api --raw-field' 'api -F' 'api --field' 'api -q' 'api --query' 'api -H' 'api --header'
            echo 'value'
        case 'api --input'
            echo 'file'
        case 'serve --host' 'serve --port' 'serve --rate-limit' 'serve --trust-issuer' 'serve --owner-token-ttl'
            echo 'value'
        case 'serve --data'
            echo 'dir'
        case 'serve --seed'
            echo 'file'
        case 'serve export --data' 'serve export --data'
            echo 'dir'
        case 'serve export --host' 'serve export --port' 'serve export --rate-limit' 'serve export --trust-issuer' 'serve export --owner-token-ttl'
            echo 'value'
        case 'serve export --seed'
            echo 'file'
        case 'serve token --identity'
            echo 'live'
        case 'serve token --ttl' 'serve token --host' 'serve token --port' 'serve token --rate-limit' 'serve token --trust-issuer' 'serve token --owner-token-ttl'
            echo 'value'
        case 'serve token --data' 'serve token --data'
            echo 'dir'
        case 'serve token --seed'
            echo 'file'
        case 'serve reset --data' 'serve reset --data'
            echo 'dir'
        case 'serve reset --host' 'serve reset --port' 'serve reset --rate-limit' 'serve reset --trust-issuer' 'serve reset --owner-token-ttl'
            echo 'value'
        case 'serve reset --seed'
            echo 'file'
        case '*'
            switch "$argv[2]"
                case '-o' '--output'
                    echo 'choice table wide json yaml ndjson id'
                case '--profile'
                    echo 'live'
                case '--api-url' '--timeout' '--retries' '--jq'
                    echo 'value'
            end
    end
end

function __pctl_arg --description "what positional argument N of PATH takes"
    switch "$argv[1] $argv[2]"
        case 'groups get 0'
            echo 'live'
        case 'groups update 0'
            echo 'live'
        case 'groups delete 0'
            echo 'live'
        case 'identities get 0'
            echo 'live'
        case 'identities update 0'
            echo 'live'
        case 'identities delete 0'
            echo 'live'
        case 'roles get 0'
            echo 'live'
        case 'roles update 0'
            echo 'live'
        case 'roles delete 0'
            echo 'live'
        case 'role-bindings get 0'
            echo 'live'
        case 'role-bindings delete 0'
            echo 'live'
        case 'identity-providers get 0'
            echo 'live'
        case 'identity-providers update 0'
            echo 'live'
        case 'identity-providers delete 0'
            echo 'live'
        case 'invites get 0'
            echo 'live'
        case 'invites delete 0'
            echo 'live'
        case 'account-associations get 0'
            echo 'live'
        case 'account-associations update 0'
            echo 'live'
        case 'account-associations delete 0'
            echo 'live'
        case 'account-associations check 0'
            echo 'live'
        case 'repos get 0'
            echo 'live'
        case 'repos update 0'
            echo 'live'
        case 'advisories get 0'
            echo 'live'
        case 'config get 0'
            echo 'live'
        case 'config set 0'
            echo 'live'
        case 'config use 0'
            echo 'live'
        case 'config delete 0'
            echo 'live'
        case 'completion 0'
            echo 'choice bash zsh fish'
    end
end

function __pctl_values --description "values of a kind; live ones come from pctl __complete"
    set -l pre $argv[2]
    switch $argv[1]
        case 'choice *'
            for v in (string split ' ' -- (string replace 'choice ' '' -- $argv[1]))
                echo $pre$v
            end
        case file
            __fish_complete_path (commandline -ct)
        case dir
            __fish_complete_directories (commandline -ct)
        case live
            set -l words (commandline -opc) (commandline -ct)
            set -e words[1]
            for line in (pctl __complete $words 2>/dev/null)
                echo $pre$line
            end
    end
end

function __pctl_complete --description "completions for the pctl command line"
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l cmd ''
    set -l kind ''
    set -l npos 0
    set -l n (count $tokens)
    set -l i 2
    while test $i -le $n
        set -l w $tokens[$i]
        if string match -qr -- '^-.' $w
            set -l k (__pctl_flag "$cmd" (string replace -r -- '=.*' '' $w))
            if test -n "$k"; and not string match -q -- '*=*' $w
                if test $i -eq $n
                    set kind $k
                    break
                end
                set i (math $i + 1)
            end
        else
            set -l sub ''
            if test $npos -eq 0
                set sub (__pctl_sub "$cmd" $w)
            end
            if test -n "$sub"
                set cmd $sub
            else
                set npos (math $npos + 1)
            end
        end
        set i (math $i + 1)
    end
    set -l pre ''
    if test -z "$kind"; and string match -qr -- '^-[^=]+=' $cur
        # --flag=VALUE: complete VALUE, keeping the prefix
        set kind (__pctl_flag "$cmd" (string replace -r -- '=.*' '' $cur))
        set pre (string replace -r -- '=.*' '=' $cur)
    end
    if test -n "$kind"
        __pctl_values "$kind" "$pre"
        return
    end
    if string match -q -- '-*' $cur
        __pctl_flags "$cmd"
        return
    end
    if test $npos -eq 0
        set -l subs (__pctl_subs "$cmd")
        if test (count $subs) -gt 0
            printf '%s\n' $subs
            return
        end
    end
    set kind (__pctl_arg "$cmd" $npos)
    test -n "$kind"; and __pctl_values "$kind" ''
end

complete -c pctl -e
complete -c pctl -f -a '(__pctl_complete)'
