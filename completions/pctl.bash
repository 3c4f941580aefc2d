# bash completion for pctl. Generated from the command tree by `npm run gen` (the same as `pctl completion bash`); do not edit.
# Install: source <(pctl completion bash)   (in ~/.bashrc), or save it as
#          ~/.local/share/bash-completion/completions/pctl

# _pctl_sub PATH WORD: REPLY=the path of subcommand WORD of PATH (names and aliases), or empty.
_pctl_sub() {
  case "$1:$2" in
    ':groups') REPLY='groups' ;;
    ':identities') REPLY='identities' ;;
    ':roles') REPLY='roles' ;;
    ':role-bindings') REPLY='role-bindings' ;;
    ':identity-providers') REPLY='identity-providers' ;;
    ':invites') REPLY='invites' ;;
    ':account-associations') REPLY='account-associations' ;;
    ':repos') REPLY='repos' ;;
    ':tags') REPLY='tags' ;;
    ':advisories'|':advisory') REPLY='advisories' ;;
    ':libraries') REPLY='libraries' ;;
    ':api') REPLY='api' ;;
    ':export') REPLY='export' ;;
    ':diff') REPLY='diff' ;;
    ':apply') REPLY='apply' ;;
    ':auth') REPLY='auth' ;;
    ':config') REPLY='config' ;;
    ':events') REPLY='events' ;;
    ':serve') REPLY='serve' ;;
    ':mcp') REPLY='mcp' ;;
    ':completion') REPLY='completion' ;;
    ':version') REPLY='version' ;;
    'groups:list'|'groups:ls') REPLY='groups list' ;;
    'groups:get'|'groups:describe') REPLY='groups get' ;;
    'groups:create') REPLY='groups create' ;;
    'groups:update') REPLY='groups update' ;;
    'groups:delete'|'groups:rm') REPLY='groups delete' ;;
    'identities:list'|'identities:ls') REPLY='identities list' ;;
    'identities:get'|'identities:describe') REPLY='identities get' ;;
    'identities:create') REPLY='identities create' ;;
    'identities:update') REPLY='identities update' ;;
    'identities:delete'|'identities:rm') REPLY='identities delete' ;;
    'roles:list'|'roles:ls') REPLY='roles list' ;;
    'roles:get'|'roles:describe') REPLY='roles get' ;;
    'roles:create') REPLY='roles create' ;;
    'roles:update') REPLY='roles update' ;;
    'roles:delete'|'roles:rm') REPLY='roles delete' ;;
    'role-bindings:list'|'role-bindings:ls') REPLY='role-bindings list' ;;
    'role-bindings:get'|'role-bindings:describe') REPLY='role-bindings get' ;;
    'role-bindings:create') REPLY='role-bindings create' ;;
    'role-bindings:delete'|'role-bindings:rm') REPLY='role-bindings delete' ;;
    'identity-providers:list'|'identity-providers:ls') REPLY='identity-providers list' ;;
    'identity-providers:get'|'identity-providers:describe') REPLY='identity-providers get' ;;
    'identity-providers:create') REPLY='identity-providers create' ;;
    'identity-providers:update') REPLY='identity-providers update' ;;
    'identity-providers:delete'|'identity-providers:rm') REPLY='identity-providers delete' ;;
    'invites:list'|'invites:ls') REPLY='invites list' ;;
    'invites:get'|'invites:describe') REPLY='invites get' ;;
    'invites:create') REPLY='invites create' ;;
    'invites:delete'|'invites:rm') REPLY='invites delete' ;;
    'invites:redeem') REPLY='invites redeem' ;;
    'account-associations:list'|'account-associations:ls') REPLY='account-associations list' ;;
    'account-associations:get'|'account-associations:describe') REPLY='account-associations get' ;;
    'account-associations:create') REPLY='account-associations create' ;;
    'account-associations:update') REPLY='account-associations update' ;;
    'account-associations:delete'|'account-associations:rm') REPLY='account-associations delete' ;;
    'account-associations:check') REPLY='account-associations check' ;;
    'repos:list'|'repos:ls') REPLY='repos list' ;;
    'repos:get'|'repos:describe') REPLY='repos get' ;;
    'repos:update') REPLY='repos update' ;;
    'tags:list'|'tags:ls') REPLY='tags list' ;;
    'advisories:list'|'advisories:ls') REPLY='advisories list' ;;
    'advisories:get'|'advisories:describe') REPLY='advisories get' ;;
    'advisories:documents') REPLY='advisories documents' ;;
    'advisories:metadata') REPLY='advisories metadata' ;;
    'libraries:list'|'libraries:ls') REPLY='libraries list' ;;
    'libraries:versions') REPLY='libraries versions' ;;
    'libraries:count') REPLY='libraries count' ;;
    'auth:login') REPLY='auth login' ;;
    'auth:status') REPLY='auth status' ;;
    'auth:token') REPLY='auth token' ;;
    'auth:logout') REPLY='auth logout' ;;
    'config:list'|'config:ls') REPLY='config list' ;;
    'config:get'|'config:describe') REPLY='config get' ;;
    'config:set') REPLY='config set' ;;
    'config:use') REPLY='config use' ;;
    'config:delete'|'config:rm') REPLY='config delete' ;;
    'events:subscriptions') REPLY='events subscriptions' ;;
    'events:deliveries') REPLY='events deliveries' ;;
    'events:redeliver') REPLY='events redeliver' ;;
    'events:watch') REPLY='events watch' ;;
    'events subscriptions:list'|'events subscriptions:ls') REPLY='events subscriptions list' ;;
    'events subscriptions:get'|'events subscriptions:describe') REPLY='events subscriptions get' ;;
    'events subscriptions:create') REPLY='events subscriptions create' ;;
    'events subscriptions:delete'|'events subscriptions:rm') REPLY='events subscriptions delete' ;;
    'serve:export') REPLY='serve export' ;;
    'serve:token') REPLY='serve token' ;;
    'serve:openapi') REPLY='serve openapi' ;;
    'serve:faults') REPLY='serve faults' ;;
    'serve:requests') REPLY='serve requests' ;;
    'serve:v1-callers'|'serve:v1-report') REPLY='serve v1-callers' ;;
    'serve:snapshot'|'serve:snapshots') REPLY='serve snapshot' ;;
    'serve:reset') REPLY='serve reset' ;;
    'serve faults:list'|'serve faults:ls') REPLY='serve faults list' ;;
    'serve faults:add') REPLY='serve faults add' ;;
    'serve faults:clear') REPLY='serve faults clear' ;;
    'serve snapshot:save') REPLY='serve snapshot save' ;;
    'serve snapshot:list'|'serve snapshot:ls') REPLY='serve snapshot list' ;;
    'serve snapshot:restore') REPLY='serve snapshot restore' ;;
    'serve snapshot:delete'|'serve snapshot:rm') REPLY='serve snapshot delete' ;;
    *) REPLY= ;;
  esac
}

# _pctl_subs PATH: REPLY=the subcommand names of PATH.
_pctl_subs() {
  REPLY=
  case "$1" in
    '') REPLY='groups identities roles role-bindings identity-providers invites account-associations repos tags advisories libraries api export diff apply auth config events serve mcp completion version' ;;
    'groups') REPLY='list get create update delete' ;;
    'identities') REPLY='list get create update delete' ;;
    'roles') REPLY='list get create update delete' ;;
    'role-bindings') REPLY='list get create delete' ;;
    'identity-providers') REPLY='list get create update delete' ;;
    'invites') REPLY='list get create delete redeem' ;;
    'account-associations') REPLY='list get create update delete check' ;;
    'repos') REPLY='list get update' ;;
    'tags') REPLY='list' ;;
    'advisories') REPLY='list get documents metadata' ;;
    'libraries') REPLY='list versions count' ;;
    'auth') REPLY='login status token logout' ;;
    'config') REPLY='list get set use delete' ;;
    'events') REPLY='subscriptions deliveries redeliver watch' ;;
    'events subscriptions') REPLY='list get create delete' ;;
    'serve') REPLY='export token openapi faults requests v1-callers snapshot reset' ;;
    'serve faults') REPLY='list add clear' ;;
    'serve snapshot') REPLY='save list restore delete' ;;
  esac
}

# _pctl_flags PATH: REPLY=the flags PATH accepts (its own, then the global ones).
_pctl_flags() {
  REPLY=
  case "$1" in
    'groups list') REPLY='--limit --page-size --order-by --skip --page-token --descendants-of --children-of --name' ;;
    'groups create') REPLY='--parent --description' ;;
    'groups update') REPLY='--name --description' ;;
    'identities list') REPLY='--limit --page-size --order-by --skip --page-token --group --children-of --descendants-of' ;;
    'identities create') REPLY='--parent --issuer --subject --description' ;;
    'identities update') REPLY='--name --description --issuer --subject' ;;
    'roles list') REPLY='--limit --page-size --order-by --skip --page-token --capabilities' ;;
    'roles create') REPLY='--parent --capability --description' ;;
    'roles update') REPLY='--name --description --capability' ;;
    'role-bindings list') REPLY='--limit --page-size --order-by --skip --page-token --group --children-of --descendants-of' ;;
    'role-bindings create') REPLY='--parent --identity --role' ;;
    'identity-providers list') REPLY='--limit --page-size --order-by --skip --page-token --group --children-of --descendants-of' ;;
    'identity-providers create') REPLY='--parent --issuer --client-id --default-role --correlation-rule --description --pkce --scope --groups-claim --client-secret' ;;
    'identity-providers update') REPLY='--name --description --issuer --client-id --default-role --pkce --scope --groups-claim --client-secret' ;;
    'invites list') REPLY='--limit --page-size --order-by --skip --page-token --group --children-of --descendants-of --key-id' ;;
    'invites create') REPLY='--parent --role --email --ttl --single-use' ;;
    'account-associations list') REPLY='--limit --page-size --order-by --skip --page-token --descendants-of --children-of --name' ;;
    'account-associations create') REPLY='--parent --description --aws-account --gcp-project-id --gcp-project-number --azure-tenant --azure-client' ;;
    'account-associations update') REPLY='--name --description --aws-account --gcp-project-id --gcp-project-number --azure-tenant --azure-client' ;;
    'account-associations check') REPLY='--provider' ;;
    'repos list') REPLY='--limit --page-size --order-by --skip --page-token --descendants-of --children-of --name' ;;
    'repos update') REPLY='--name --description' ;;
    'tags list') REPLY='--limit --page-size --order-by --skip --page-token --repo --deprecated' ;;
    'advisories list') REPLY='--limit --page-size --order-by --skip --page-token --artifact --advisory-id' ;;
    'advisories documents') REPLY='--package --cve' ;;
    'advisories metadata') REPLY='--limit --page-size --order-by --skip --page-token --id' ;;
    'libraries list') REPLY='--limit --page-size --order-by --skip --page-token --ecosystem --query' ;;
    'libraries versions') REPLY='--limit --page-size --order-by --skip --page-token' ;;
    'libraries count') REPLY='--ecosystem' ;;
    'api') REPLY='-X --method -f --raw-field -F --field --input -q --query -H --header --paginate -i --include' ;;
    'diff') REPLY='-f --file --prune' ;;
    'apply') REPLY='-f --file --prune --dry-run' ;;
    'auth login') REPLY='--no-browser --with-token --device --identity-token --identity' ;;
    'config get') REPLY='--show-token' ;;
    'events subscriptions list') REPLY='--limit --page-size --order-by --skip --page-token --group --children-of --descendants-of' ;;
    'events subscriptions create') REPLY='--parent --sink' ;;
    'events deliveries') REPLY='--subscription --failed --limit' ;;
    'events watch') REPLY='--descendants-of --type --after --count' ;;
    'serve') REPLY='--host --port --data --public-url --database --seed --demo --log --rate-limit --trust-issuer --audience --trust-test-issuers --owner-token-ttl --fault --latency --journal --event-retry --event-attempts --event-timeout --mcp-writes --mcp-session-idle --v1 --v1-sunset --http2-timeouts --http2 --allow-private-sinks --deterministic' ;;
    'serve export') REPLY='--data --host --port --data --public-url --database --seed --demo --log --rate-limit --trust-issuer --audience --trust-test-issuers --owner-token-ttl --fault --latency --journal --event-retry --event-attempts --event-timeout --mcp-writes --mcp-session-idle --v1 --v1-sunset --http2-timeouts --http2 --allow-private-sinks --deterministic' ;;
    'serve token') REPLY='--identity --as-issuer --subject --audience --claim --ttl --data --host --port --data --public-url --database --seed --demo --log --rate-limit --trust-issuer --audience --trust-test-issuers --owner-token-ttl --fault --latency --journal --event-retry --event-attempts --event-timeout --mcp-writes --mcp-session-idle --v1 --v1-sunset --http2-timeouts --http2 --allow-private-sinks --deterministic' ;;
    'serve openapi') REPLY='--host --port --data --public-url --database --seed --demo --log --rate-limit --trust-issuer --audience --trust-test-issuers --owner-token-ttl --fault --latency --journal --event-retry --event-attempts --event-timeout --mcp-writes --mcp-session-idle --v1 --v1-sunset --http2-timeouts --http2 --allow-private-sinks --deterministic' ;;
    'serve faults') REPLY='--host --port --data --public-url --database --seed --demo --log --rate-limit --trust-issuer --audience --trust-test-issuers --owner-token-ttl --fault --latency --journal --event-retry --event-attempts --event-timeout --mcp-writes --mcp-session-idle --v1 --v1-sunset --http2-timeouts --http2 --allow-private-sinks --deterministic' ;;
    'serve faults list') REPLY='--host --port --data --public-url --database --seed --demo --log --rate-limit --trust-issuer --audience --trust-test-issuers --owner-token-ttl --fault --latency --journal --event-retry --event-attempts --event-timeout --mcp-writes --mcp-session-idle --v1 --v1-sunset --http2-timeouts --http2 --allow-private-sinks --deterministic' ;;
    'serve faults add') REPLY='--host --port --data --public-url --database --seed --demo --log --rate-limit --trust-issuer --audience --trust-test-issuers --owner-token-ttl --fault --latency --journal --event-retry --event-attempts --event-timeout --mcp-writes --mcp-session-idle --v1 --v1-sunset --http2-timeouts --http2 --allow-private-sinks --deterministic' ;;
    'serve faults clear') REPLY='--host --port --data --public-url --database --seed --demo --log --rate-limit --trust-issuer --audience --trust-test-issuers --owner-token-ttl --fault --latency --journal --event-retry --event-attempts --event-timeout --mcp-writes --mcp-session-idle --v1 --v1-sunset --http2-timeouts --http2 --allow-private-sinks --deterministic' ;;
    'serve requests') REPLY='-f --follow --limit --host --port --data --public-url --database --seed --demo --log --rate-limit --trust-issuer --audience --trust-test-issuers --owner-token-ttl --fault --latency --journal --event-retry --event-attempts --event-timeout --mcp-writes --mcp-session-idle --v1 --v1-sunset --http2-timeouts --http2 --allow-private-sinks --deterministic' ;;
    'serve v1-callers') REPLY='--host --port --data --public-url --database --seed --demo --log --rate-limit --trust-issuer --audience --trust-test-issuers --owner-token-ttl --fault --latency --journal --event-retry --event-attempts --event-timeout --mcp-writes --mcp-session-idle --v1 --v1-sunset --http2-timeouts --http2 --allow-private-sinks --deterministic' ;;
    'serve snapshot') REPLY='--host --port --data --public-url --database --seed --demo --log --rate-limit --trust-issuer --audience --trust-test-issuers --owner-token-ttl --fault --latency --journal --event-retry --event-attempts --event-timeout --mcp-writes --mcp-session-idle --v1 --v1-sunset --http2-timeouts --http2 --allow-private-sinks --deterministic' ;;
    'serve snapshot save') REPLY='--force --host --port --data --public-url --database --seed --demo --log --rate-limit --trust-issuer --audience --trust-test-issuers --owner-token-ttl --fault --latency --journal --event-retry --event-attempts --event-timeout --mcp-writes --mcp-session-idle --v1 --v1-sunset --http2-timeouts --http2 --allow-private-sinks --deterministic' ;;
    'serve snapshot list') REPLY='--host --port --data --public-url --database --seed --demo --log --rate-limit --trust-issuer --audience --trust-test-issuers --owner-token-ttl --fault --latency --journal --event-retry --event-attempts --event-timeout --mcp-writes --mcp-session-idle --v1 --v1-sunset --http2-timeouts --http2 --allow-private-sinks --deterministic' ;;
    'serve snapshot restore') REPLY='--host --port --data --public-url --database --seed --demo --log --rate-limit --trust-issuer --audience --trust-test-issuers --owner-token-ttl --fault --latency --journal --event-retry --event-attempts --event-timeout --mcp-writes --mcp-session-idle --v1 --v1-sunset --http2-timeouts --http2 --allow-private-sinks --deterministic' ;;
    'serve snapshot delete') REPLY='--host --port --data --public-url --database --seed --demo --log --rate-limit --trust-issuer --audience --trust-test-issuers --owner-token-ttl --fault --latency --journal --event-retry --event-attempts --event-timeout --mcp-writes --mcp-session-idle --v1 --v1-sunset --http2-timeouts --http2 --allow-private-sinks --deterministic' ;;
    'serve reset') REPLY='--data --live --host --port --data --public-url --database --seed --demo --log --rate-limit --trust-issuer --audience --trust-test-issuers --owner-token-ttl --fault --latency --journal --event-retry --event-attempts --event-timeout --mcp-writes --mcp-session-idle --v1 --v1-sunset --http2-timeouts --http2 --allow-private-sinks --deterministic' ;;
    'mcp') REPLY='--allow-writes' ;;
  esac
  REPLY+=' -V --version -o --output --profile --api-url --timeout --retries --json --jq --debug --no-color -y --yes -h --help'
}

# _pctl_flag PATH FLAG: REPLY=what FLAG's value takes (value, file, dir, live, 'choice A B …'), empty for a boolean flag.
_pctl_flag() {
  case "$1 $2" in
    'groups list --limit'|'groups list --page-size'|'groups list --order-by'|'groups list --skip'|'groups list --page-token'|'groups list --name') REPLY='value' ;;
    'groups list --descendants-of'|'groups list --children-of') REPLY='live' ;;
    'groups create --parent') REPLY='live' ;;
    'groups create --description') REPLY='value' ;;
    'groups update --name'|'groups update --description') REPLY='value' ;;
    'identities list --limit'|'identities list --page-size'|'identities list --order-by'|'identities list --skip'|'identities list --page-token') REPLY='value' ;;
    'identities list --group'|'identities list --children-of'|'identities list --descendants-of') REPLY='live' ;;
    'identities create --parent') REPLY='live' ;;
    'identities create --issuer'|'identities create --subject'|'identities create --description') REPLY='value' ;;
    'identities update --name'|'identities update --description'|'identities update --issuer'|'identities update --subject') REPLY='value' ;;
    'roles list --limit'|'roles list --page-size'|'roles list --order-by'|'roles list --skip'|'roles list --page-token') REPLY='value' ;;
    'roles create --parent') REPLY='live' ;;
    'roles create --capability'|'roles create --description') REPLY='value' ;;
    'roles update --name'|'roles update --description'|'roles update --capability') REPLY='value' ;;
    'role-bindings list --limit'|'role-bindings list --page-size'|'role-bindings list --order-by'|'role-bindings list --skip'|'role-bindings list --page-token') REPLY='value' ;;
    'role-bindings list --group'|'role-bindings list --children-of'|'role-bindings list --descendants-of') REPLY='live' ;;
    'role-bindings create --parent'|'role-bindings create --identity'|'role-bindings create --role') REPLY='live' ;;
    'identity-providers list --limit'|'identity-providers list --page-size'|'identity-providers list --order-by'|'identity-providers list --skip'|'identity-providers list --page-token') REPLY='value' ;;
    'identity-providers list --group'|'identity-providers list --children-of'|'identity-providers list --descendants-of') REPLY='live' ;;
    'identity-providers create --parent'|'identity-providers create --default-role') REPLY='live' ;;
    'identity-providers create --issuer'|'identity-providers create --client-id'|'identity-providers create --description'|'identity-providers create --scope'|'identity-providers create --groups-claim') REPLY='value' ;;
    'identity-providers create --correlation-rule') REPLY='choice sub oid' ;;
    'identity-providers update --name'|'identity-providers update --description'|'identity-providers update --issuer'|'identity-providers update --client-id'|'identity-providers update --scope'|'identity-providers update --groups-claim') REPLY='value' ;;
    'identity-providers update --default-role') REPLY='live' ;;
    'identity-providers update --pkce') REPLY='choice on off' ;;
    'invites list --limit'|'invites list --page-size'|'invites list --order-by'|'invites list --skip'|'invites list --page-token'|'invites list --key-id') REPLY='value' ;;
    'invites list --group'|'invites list --children-of'|'invites list --descendants-of') REPLY='live' ;;
    'invites create --parent'|'invites create --role') REPLY='live' ;;
    'invites create --email'|'invites create --ttl') REPLY='value' ;;
    'account-associations list --limit'|'account-associations list --page-size'|'account-associations list --order-by'|'account-associations list --skip'|'account-associations list --page-token'|'account-associations list --name') REPLY='value' ;;
    'account-associations list --descendants-of'|'account-associations list --children-of') REPLY='live' ;;
    'account-associations create --parent') REPLY='live' ;;
    'account-associations create --description'|'account-associations create --aws-account'|'account-associations create --gcp-project-id'|'account-associations create --gcp-project-number'|'account-associations create --azure-tenant'|'account-associations create --azure-client') REPLY='value' ;;
    'account-associations update --name'|'account-associations update --description'|'account-associations update --aws-account'|'account-associations update --gcp-project-id'|'account-associations update --gcp-project-number'|'account-associations update --azure-tenant'|'account-associations update --azure-client') REPLY='value' ;;
    'account-associations check --provider') REPLY='choice aws gcp azure' ;;
    'repos list --limit'|'repos list --page-size'|'repos list --order-by'|'repos list --skip'|'repos list --page-token'|'repos list --name') REPLY='value' ;;
    'repos list --descendants-of'|'repos list --children-of') REPLY='live' ;;
    'repos update --name'|'repos update --description') REPLY='value' ;;
    'tags list --limit'|'tags list --page-size'|'tags list --order-by'|'tags list --skip'|'tags list --page-token') REPLY='value' ;;
    'tags list --repo') REPLY='live' ;;
    'advisories list --limit'|'advisories list --page-size'|'advisories list --order-by'|'advisories list --skip'|'advisories list --page-token'|'advisories list --artifact'|'advisories list --advisory-id') REPLY='value' ;;
    'advisories documents --package'|'advisories documents --cve') REPLY='value' ;;
    'advisories metadata --limit'|'advisories metadata --page-size'|'advisories metadata --order-by'|'advisories metadata --skip'|'advisories metadata --page-token'|'advisories metadata --id') REPLY='value' ;;
    'libraries list --limit'|'libraries list --page-size'|'libraries list --order-by'|'libraries list --skip'|'libraries list --page-token'|'libraries list --ecosystem'|'libraries list --query') REPLY='value' ;;
    'libraries versions --limit'|'libraries versions --page-size'|'libraries versions --order-by'|'libraries versions --skip'|'libraries versions --page-token') REPLY='value' ;;
    'libraries count --ecosystem') REPLY='value' ;;
    'api -X'|'api --method'|'api -f'|'api --raw-field'|'api -F'|'api --field'|'api -q'|'api --query'|'api -H'|'api --header') REPLY='value' ;;
    'api --input') REPLY='file' ;;
    'diff -f'|'diff --file') REPLY='file' ;;
    'apply -f'|'apply --file') REPLY='file' ;;
    'auth login --identity-token') REPLY='file' ;;
    'auth login --identity') REPLY='value' ;;
    'events subscriptions list --limit'|'events subscriptions list --page-size'|'events subscriptions list --order-by'|'events subscriptions list --skip'|'events subscriptions list --page-token') REPLY='value' ;;
    'events subscriptions list --group'|'events subscriptions list --children-of'|'events subscriptions list --descendants-of') REPLY='live' ;;
    'events subscriptions create --parent') REPLY='live' ;;
    'events subscriptions create --sink') REPLY='value' ;;
    'events deliveries --subscription') REPLY='live' ;;
    'events deliveries --limit') REPLY='value' ;;
    'events watch --descendants-of') REPLY='live' ;;
    'events watch --type'|'events watch --after'|'events watch --count') REPLY='value' ;;
    'serve --host'|'serve --port'|'serve --public-url'|'serve --database'|'serve --rate-limit'|'serve --trust-issuer'|'serve --audience'|'serve --owner-token-ttl'|'serve --fault'|'serve --latency'|'serve --journal'|'serve --event-retry'|'serve --event-attempts'|'serve --event-timeout'|'serve --mcp-session-idle'|'serve --v1'|'serve --v1-sunset'|'serve --http2-timeouts'|'serve --http2'|'serve --deterministic') REPLY='value' ;;
    'serve --data') REPLY='dir' ;;
    'serve --seed') REPLY='file' ;;
    'serve export --data'|'serve export --data') REPLY='dir' ;;
    'serve export --host'|'serve export --port'|'serve export --public-url'|'serve export --database'|'serve export --rate-limit'|'serve export --trust-issuer'|'serve export --audience'|'serve export --owner-token-ttl'|'serve export --fault'|'serve export --latency'|'serve export --journal'|'serve export --event-retry'|'serve export --event-attempts'|'serve export --event-timeout'|'serve export --mcp-session-idle'|'serve export --v1'|'serve export --v1-sunset'|'serve export --http2-timeouts'|'serve export --http2'|'serve export --deterministic') REPLY='value' ;;
    'serve export --seed') REPLY='file' ;;
    'serve token --identity') REPLY='live' ;;
    'serve token --as-issuer'|'serve token --subject'|'serve token --audience'|'serve token --claim'|'serve token --ttl'|'serve token --host'|'serve token --port'|'serve token --public-url'|'serve token --database'|'serve token --rate-limit'|'serve token --trust-issuer'|'serve token --audience'|'serve token --owner-token-ttl'|'serve token --fault'|'serve token --latency'|'serve token --journal'|'serve token --event-retry'|'serve token --event-attempts'|'serve token --event-timeout'|'serve token --mcp-session-idle'|'serve token --v1'|'serve token --v1-sunset'|'serve token --http2-timeouts'|'serve token --http2'|'serve token --deterministic') REPLY='value' ;;
    'serve token --data'|'serve token --data') REPLY='dir' ;;
    'serve token --seed') REPLY='file' ;;
    'serve openapi --host'|'serve openapi --port'|'serve openapi --public-url'|'serve openapi --database'|'serve openapi --rate-limit'|'serve openapi --trust-issuer'|'serve openapi --audience'|'serve openapi --owner-token-ttl'|'serve openapi --fault'|'serve openapi --latency'|'serve openapi --journal'|'serve openapi --event-retry'|'serve openapi --event-attempts'|'serve openapi --event-timeout'|'serve openapi --mcp-session-idle'|'serve openapi --v1'|'serve openapi --v1-sunset'|'serve openapi --http2-timeouts'|'serve openapi --http2'|'serve openapi --deterministic') REPLY='value' ;;
    'serve openapi --data') REPLY='dir' ;;
    'serve openapi --seed') REPLY='file' ;;
    'serve faults --host'|'serve faults --port'|'serve faults --public-url'|'serve faults --database'|'serve faults --rate-limit'|'serve faults --trust-issuer'|'serve faults --audience'|'serve faults --owner-token-ttl'|'serve faults --fault'|'serve faults --latency'|'serve faults --journal'|'serve faults --event-retry'|'serve faults --event-attempts'|'serve faults --event-timeout'|'serve faults --mcp-session-idle'|'serve faults --v1'|'serve faults --v1-sunset'|'serve faults --http2-timeouts'|'serve faults --http2'|'serve faults --deterministic') REPLY='value' ;;
    'serve faults --data') REPLY='dir' ;;
    'serve faults --seed') REPLY='file' ;;
    'serve faults list --host'|'serve faults list --port'|'serve faults list --public-url'|'serve faults list --database'|'serve faults list --rate-limit'|'serve faults list --trust-issuer'|'serve faults list --audience'|'serve faults list --owner-token-ttl'|'serve faults list --fault'|'serve faults list --latency'|'serve faults list --journal'|'serve faults list --event-retry'|'serve faults list --event-attempts'|'serve faults list --event-timeout'|'serve faults list --mcp-session-idle'|'serve faults list --v1'|'serve faults list --v1-sunset'|'serve faults list --http2-timeouts'|'serve faults list --http2'|'serve faults list --deterministic') REPLY='value' ;;
    'serve faults list --data') REPLY='dir' ;;
    'serve faults list --seed') REPLY='file' ;;
    'serve faults add --host'|'serve faults add --port'|'serve faults add --public-url'|'serve faults add --database'|'serve faults add --rate-limit'|'serve faults add --trust-issuer'|'serve faults add --audience'|'serve faults add --owner-token-ttl'|'serve faults add --fault'|'serve faults add --latency'|'serve faults add --journal'|'serve faults add --event-retry'|'serve faults add --event-attempts'|'serve faults add --event-timeout'|'serve faults add --mcp-session-idle'|'serve faults add --v1'|'serve faults add --v1-sunset'|'serve faults add --http2-timeouts'|'serve faults add --http2'|'serve faults add --deterministic') REPLY='value' ;;
    'serve faults add --data') REPLY='dir' ;;
    'serve faults add --seed') REPLY='file' ;;
    'serve faults clear --host'|'serve faults clear --port'|'serve faults clear --public-url'|'serve faults clear --database'|'serve faults clear --rate-limit'|'serve faults clear --trust-issuer'|'serve faults clear --audience'|'serve faults clear --owner-token-ttl'|'serve faults clear --fault'|'serve faults clear --latency'|'serve faults clear --journal'|'serve faults clear --event-retry'|'serve faults clear --event-attempts'|'serve faults clear --event-timeout'|'serve faults clear --mcp-session-idle'|'serve faults clear --v1'|'serve faults clear --v1-sunset'|'serve faults clear --http2-timeouts'|'serve faults clear --http2'|'serve faults clear --deterministic') REPLY='value' ;;
    'serve faults clear --data') REPLY='dir' ;;
    'serve faults clear --seed') REPLY='file' ;;
    'serve requests --limit'|'serve requests --host'|'serve requests --port'|'serve requests --public-url'|'serve requests --database'|'serve requests --rate-limit'|'serve requests --trust-issuer'|'serve requests --audience'|'serve requests --owner-token-ttl'|'serve requests --fault'|'serve requests --latency'|'serve requests --journal'|'serve requests --event-retry'|'serve requests --event-attempts'|'serve requests --event-timeout'|'serve requests --mcp-session-idle'|'serve requests --v1'|'serve requests --v1-sunset'|'serve requests --http2-timeouts'|'serve requests --http2'|'serve requests --deterministic') REPLY='value' ;;
    'serve requests --data') REPLY='dir' ;;
    'serve requests --seed') REPLY='file' ;;
    'serve v1-callers --host'|'serve v1-callers --port'|'serve v1-callers --public-url'|'serve v1-callers --database'|'serve v1-callers --rate-limit'|'serve v1-callers --trust-issuer'|'serve v1-callers --audience'|'serve v1-callers --owner-token-ttl'|'serve v1-callers --fault'|'serve v1-callers --latency'|'serve v1-callers --journal'|'serve v1-callers --event-retry'|'serve v1-callers --event-attempts'|'serve v1-callers --event-timeout'|'serve v1-callers --mcp-session-idle'|'serve v1-callers --v1'|'serve v1-callers --v1-sunset'|'serve v1-callers --http2-timeouts'|'serve v1-callers --http2'|'serve v1-callers --deterministic') REPLY='value' ;;
    'serve v1-callers --data') REPLY='dir' ;;
    'serve v1-callers --seed') REPLY='file' ;;
    'serve snapshot --host'|'serve snapshot --port'|'serve snapshot --public-url'|'serve snapshot --database'|'serve snapshot --rate-limit'|'serve snapshot --trust-issuer'|'serve snapshot --audience'|'serve snapshot --owner-token-ttl'|'serve snapshot --fault'|'serve snapshot --latency'|'serve snapshot --journal'|'serve snapshot --event-retry'|'serve snapshot --event-attempts'|'serve snapshot --event-timeout'|'serve snapshot --mcp-session-idle'|'serve snapshot --v1'|'serve snapshot --v1-sunset'|'serve snapshot --http2-timeouts'|'serve snapshot --http2'|'serve snapshot --deterministic') REPLY='value' ;;
    'serve snapshot --data') REPLY='dir' ;;
    'serve snapshot --seed') REPLY='file' ;;
    'serve snapshot save --host'|'serve snapshot save --port'|'serve snapshot save --public-url'|'serve snapshot save --database'|'serve snapshot save --rate-limit'|'serve snapshot save --trust-issuer'|'serve snapshot save --audience'|'serve snapshot save --owner-token-ttl'|'serve snapshot save --fault'|'serve snapshot save --latency'|'serve snapshot save --journal'|'serve snapshot save --event-retry'|'serve snapshot save --event-attempts'|'serve snapshot save --event-timeout'|'serve snapshot save --mcp-session-idle'|'serve snapshot save --v1'|'serve snapshot save --v1-sunset'|'serve snapshot save --http2-timeouts'|'serve snapshot save --http2'|'serve snapshot save --deterministic') REPLY='value' ;;
    'serve snapshot save --data') REPLY='dir' ;;
    'serve snapshot save --seed') REPLY='file' ;;
    'serve snapshot list --host'|'serve snapshot list --port'|'serve snapshot list --public-url'|'serve snapshot list --database'|'serve snapshot list --rate-limit'|'serve snapshot list --trust-issuer'|'serve snapshot list --audience'|'serve snapshot list --owner-token-ttl'|'serve snapshot list --fault'|'serve snapshot list --latency'|'serve snapshot list --journal'|'serve snapshot list --event-retry'|'serve snapshot list --event-attempts'|'serve snapshot list --event-timeout'|'serve snapshot list --mcp-session-idle'|'serve snapshot list --v1'|'serve snapshot list --v1-sunset'|'serve snapshot list --http2-timeouts'|'serve snapshot list --http2'|'serve snapshot list --deterministic') REPLY='value' ;;
    'serve snapshot list --data') REPLY='dir' ;;
    'serve snapshot list --seed') REPLY='file' ;;
    'serve snapshot restore --host'|'serve snapshot restore --port'|'serve snapshot restore --public-url'|'serve snapshot restore --database'|'serve snapshot restore --rate-limit'|'serve snapshot restore --trust-issuer'|'serve snapshot restore --audience'|'serve snapshot restore --owner-token-ttl'|'serve snapshot restore --fault'|'serve snapshot restore --latency'|'serve snapshot restore --journal'|'serve snapshot restore --event-retry'|'serve snapshot restore --event-attempts'|'serve snapshot restore --event-timeout'|'serve snapshot restore --mcp-session-idle'|'serve snapshot restore --v1'|'serve snapshot restore --v1-sunset'|'serve snapshot restore --http2-timeouts'|'serve snapshot restore --http2'|'serve snapshot restore --deterministic') REPLY='value' ;;
    'serve snapshot restore --data') REPLY='dir' ;;
    'serve snapshot restore --seed') REPLY='file' ;;
    'serve snapshot delete --host'|'serve snapshot delete --port'|'serve snapshot delete --public-url'|'serve snapshot delete --database'|'serve snapshot delete --rate-limit'|'serve snapshot delete --trust-issuer'|'serve snapshot delete --audience'|'serve snapshot delete --owner-token-ttl'|'serve snapshot delete --fault'|'serve snapshot delete --latency'|'serve snapshot delete --journal'|'serve snapshot delete --event-retry'|'serve snapshot delete --event-attempts'|'serve snapshot delete --event-timeout'|'serve snapshot delete --mcp-session-idle'|'serve snapshot delete --v1'|'serve snapshot delete --v1-sunset'|'serve snapshot delete --http2-timeouts'|'serve snapshot delete --http2'|'serve snapshot delete --deterministic') REPLY='value' ;;
    'serve snapshot delete --data') REPLY='dir' ;;
    'serve snapshot delete --seed') REPLY='file' ;;
    'serve reset --data'|'serve reset --data') REPLY='dir' ;;
    'serve reset --host'|'serve reset --port'|'serve reset --public-url'|'serve reset --database'|'serve reset --rate-limit'|'serve reset --trust-issuer'|'serve reset --audience'|'serve reset --owner-token-ttl'|'serve reset --fault'|'serve reset --latency'|'serve reset --journal'|'serve reset --event-retry'|'serve reset --event-attempts'|'serve reset --event-timeout'|'serve reset --mcp-session-idle'|'serve reset --v1'|'serve reset --v1-sunset'|'serve reset --http2-timeouts'|'serve reset --http2'|'serve reset --deterministic') REPLY='value' ;;
    'serve reset --seed') REPLY='file' ;;
    *)
      case "$2" in
        '-o'|'--output') REPLY='choice table wide json yaml ndjson id csv tree' ;;
        '--profile') REPLY='live' ;;
        '--api-url'|'--timeout'|'--retries'|'--json'|'--jq') REPLY='value' ;;
        *) REPLY= ;;
      esac ;;
  esac
}

# _pctl_arg PATH N: REPLY=what positional argument N of PATH takes, or empty.
_pctl_arg() {
  case "$1 $2" in
    'groups get 0') REPLY='live' ;;
    'groups update 0') REPLY='live' ;;
    'groups delete 0') REPLY='live' ;;
    'identities get 0') REPLY='live' ;;
    'identities update 0') REPLY='live' ;;
    'identities delete 0') REPLY='live' ;;
    'roles get 0') REPLY='live' ;;
    'roles update 0') REPLY='live' ;;
    'roles delete 0') REPLY='live' ;;
    'role-bindings get 0') REPLY='live' ;;
    'role-bindings delete 0') REPLY='live' ;;
    'identity-providers get 0') REPLY='live' ;;
    'identity-providers update 0') REPLY='live' ;;
    'identity-providers delete 0') REPLY='live' ;;
    'invites get 0') REPLY='live' ;;
    'invites delete 0') REPLY='live' ;;
    'account-associations get 0') REPLY='live' ;;
    'account-associations update 0') REPLY='live' ;;
    'account-associations delete 0') REPLY='live' ;;
    'account-associations check 0') REPLY='live' ;;
    'repos get 0') REPLY='live' ;;
    'repos update 0') REPLY='live' ;;
    'advisories get 0') REPLY='live' ;;
    'libraries versions 0') REPLY='live' ;;
    'export 0') REPLY='live' ;;
    'config get 0') REPLY='live' ;;
    'config set 0') REPLY='live' ;;
    'config use 0') REPLY='live' ;;
    'config delete 0') REPLY='live' ;;
    'events subscriptions get 0') REPLY='live' ;;
    'events subscriptions delete 0') REPLY='live' ;;
    'completion 0') REPLY='choice bash zsh fish' ;;
    *) REPLY= ;;
  esac
}

# _pctl_values KIND: COMPREPLY for a value of that kind; live values come from `pctl __complete`.
_pctl_values() {
  local line q
  local -a args=()
  local -i j
  case $1 in
    choice\ *) COMPREPLY=($(compgen -W "${1#choice }" -- "$cur")) ;;
    file) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")) ;;
    dir) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur")) ;;
    live)
      # The words so far (without the '=' that COMP_WORDBREAKS splits off), then the current one.
      for ((j = 1; j < COMP_CWORD; j++)); do
        [[ ${COMP_WORDS[j]} == = ]] || args+=("${COMP_WORDS[j]}")
      done
      args+=("$cur")
      while IFS= read -r line; do
        [[ -n $line ]] || continue
        printf -v q '%q' "${line%%$'\t'*}"
        COMPREPLY+=("$q")
      done < <(PCTL_COMPLETE_SHELL=bash pctl __complete "${args[@]}" 2>/dev/null)
      ;;
  esac
}

_pctl() {
  local cur=${COMP_WORDS[COMP_CWORD]} cmd= kind= REPLY w
  local -i i npos=0
  COMPREPLY=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=${COMP_WORDS[i]}
    [[ $w == = ]] && continue
    if [[ $w == -?* ]]; then
      _pctl_flag "$cmd" "${w%%=*}"
      [[ -z $REPLY || $w == *=* ]] && continue
      # --flag VALUE, or --flag = VALUE when COMP_WORDBREAKS split --flag=VALUE
      [[ ${COMP_WORDS[i+1]} == = ]] && ((i++))
      if ((i + 1 >= COMP_CWORD)); then kind=$REPLY; break; fi
      ((i++))
      continue
    fi
    if ((npos == 0)); then
      _pctl_sub "$cmd" "$w"
      if [[ -n $REPLY ]]; then cmd=$REPLY; continue; fi
    fi
    ((npos++))
  done
  if [[ -n $kind ]]; then
    [[ $cur == = ]] && cur=
    _pctl_values "$kind"
    return 0
  fi
  if [[ $cur == -* ]]; then
    _pctl_flags "$cmd"
    COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
    return 0
  fi
  if ((npos == 0)); then
    _pctl_subs "$cmd"
    if [[ -n $REPLY ]]; then
      COMPREPLY=($(compgen -W "$REPLY" -- "$cur"))
      return 0
    fi
  fi
  _pctl_arg "$cmd" "$npos"
  [[ -n $REPLY ]] && _pctl_values "$REPLY"
  return 0
}

complete -F _pctl pctl
