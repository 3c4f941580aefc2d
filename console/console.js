// pctl console: a read-only view of what the signed-in identity may see (the group tree with
// identities, role bindings, repos and tags) and, for the owner, serve's live request journal
// and its webhook deliveries.
//
// Signing in is `pctl auth login` done by the page: authorization code + PKCE at this
// server's own issuer, redirected back to this page; the token stays in sessionStorage (this
// tab only, gone when it closes). Everything shown is put in the page as text (textContent,
// text nodes, attributes), never as HTML; the server's CSP enforces Trusted Types, so an
// HTML sink would throw instead of rendering what the API sent.

const CLIENT_ID = 'pctl';
const REDIRECT_URI = `${location.origin}/`;
const TOKEN_KEY = 'pctl.console.token';
const PENDING_KEY = 'pctl.console.signin';
/** The issuer redirects only to loopback addresses (RFC 8252), so sign-in works only there. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);
const PAGE_SIZE = 200;
/**
 * Of each kind, at most this many are read (the summary says when more exist). Lists come in
 * uid order, where a parent precedes its children, so a cut tree is never missing a parent.
 */
const MAX_ITEMS = 2000;
const JOURNAL_ROWS = 300;
/** Seconds a journal request waits for news (the server allows up to 60). */
const JOURNAL_WAIT_S = 25;
const RETRY_MS = 3000;
/** Deliveries shown (newest first), as `pctl events deliveries` lists by default. */
const DELIVERY_ROWS = 100;
/** While a delivery is pending, it is read again when its next attempt is due: no sooner than this… */
const DELIVERY_RECHECK_MIN_MS = 1000;
/** …and no later (a slow sink settles an attempt after it was due). */
const DELIVERY_RECHECK_MAX_MS = 30_000;

const $ = (id) => document.getElementById(id);

/** An element with attributes (`class`, `title`, `data-*` …) and children (strings become text nodes). */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) node.setAttribute(k, String(v));
  node.append(...children.flat().filter((c) => c !== undefined && c !== null && c !== ''));
  return node;
}

function show(node, visible) {
  node.hidden = !visible;
}

function say(node, message) {
  node.textContent = message ?? '';
  show(node, Boolean(message));
}

// ---- session and sign-in ----

function readSession() {
  try {
    const s = JSON.parse(sessionStorage.getItem(TOKEN_KEY) ?? 'null');
    if (s && typeof s.token === 'string' && s.expiresAt > Date.now()) return s;
  } catch {
    // A damaged entry is the same as none.
  }
  sessionStorage.removeItem(TOKEN_KEY);
  return null;
}

function base64url(bytes) {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

async function startSignIn() {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  const state = base64url(crypto.getRandomValues(new Uint8Array(16)));
  sessionStorage.setItem(PENDING_KEY, JSON.stringify({ verifier, state }));
  const url = new URL('/oauth/authorize', location.origin);
  url.search = new URLSearchParams({
    response_type: 'code', client_id: CLIENT_ID, redirect_uri: REDIRECT_URI, state, code_challenge: challenge, code_challenge_method: 'S256',
  }).toString();
  location.assign(url);
}

/** The issuer's answer at `/?code=…&state=…` (or `?error=…`): the code for a token, once. */
async function finishSignIn(params) {
  // The code is spent either way: keep it out of the history and out of reloads.
  history.replaceState(null, '', '/');
  const stored = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  let pending = null;
  try {
    pending = JSON.parse(stored ?? 'null');
  } catch {
    // A damaged entry is the same as none.
  }
  // An answer this tab did not ask for (a forged or replayed link) is dropped unread.
  if (!pending || params.get('state') !== pending.state) throw new Error('That sign-in answer was not started from this page. Sign in again.');
  if (params.has('error')) throw new Error(`Sign-in ended: ${params.get('error_description') || params.get('error')}`);
  const res = await fetch('/oauth/token', {
    method: 'POST',
    cache: 'no-store',
    body: new URLSearchParams({
      grant_type: 'authorization_code', code: params.get('code') ?? '', redirect_uri: REDIRECT_URI, client_id: CLIENT_ID, code_verifier: pending.verifier,
    }),
  });
  const body = await res.json().catch(() => ({}));
  if (!res.ok || typeof body.access_token !== 'string') throw new Error(`Sign-in failed: ${body.error_description ?? body.error ?? `HTTP ${res.status}`}`);
  sessionStorage.setItem(TOKEN_KEY, JSON.stringify({ token: body.access_token, expiresAt: Date.now() + Number(body.expires_in ?? 0) * 1000 }));
}

function showSignIn(message) {
  show($('console'), false);
  for (const id of ['who', 'refresh', 'sign-out']) show($(id), false);
  show($('sign-in'), true);
  const loopback = LOOPBACK_HOSTS.has(location.hostname);
  $('sign-in-button').disabled = !loopback;
  say($('sign-in-error'), message ?? (loopback ? '' : `Signing in works on a loopback address only (127.0.0.1, localhost, [::1]); open this server's console on one, e.g. http://127.0.0.1:${location.port || 80}/.`));
}

// ---- the API ----

class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** GET of an API path as the signed-in identity; errors carry the server's AIP-193 message. */
async function api(path, signal) {
  const session = readSession();
  if (!session) {
    signOut('Your sign-in has expired. Sign in again.');
    throw new ApiError(401, 'signed out');
  }
  const res = await fetch(path, { headers: { authorization: `Bearer ${session.token}` }, cache: 'no-store', signal });
  const body = await res.json().catch(() => undefined);
  if (res.ok) return body;
  const injected = body?.details?.some?.((d) => d?.reason === 'INJECTED_FAULT');
  // A 401 means the token is no longer good (unless a fault rule made it up).
  if (res.status === 401 && !injected) signOut(`The server no longer accepts this sign-in (${body?.message ?? 'HTTP 401'}). Sign in again.`);
  throw new ApiError(res.status, `${path.split('?')[0]}: ${body?.message ?? `HTTP ${res.status}`}`);
}

/** Every page of a list, up to MAX_ITEMS; `total` is the server's count of what the caller may see. */
async function listAll(collection, key) {
  const items = [];
  let pageToken = '';
  let total;
  do {
    const query = new URLSearchParams({ page_size: String(PAGE_SIZE) });
    if (pageToken) query.set('page_token', pageToken);
    const page = await api(`${collection}?${query}`);
    items.push(...(page[key] ?? []));
    pageToken = page.nextPageToken ?? '';
    total = Number(page.totalCount ?? items.length);
  } while (pageToken && items.length < MAX_ITEMS);
  return { items, total };
}

// ---- the group tree ----

/** What the tree shows; each list's key in its response is the collection's last path segment. */
const KINDS = [
  { key: 'groups', path: '/iam/v2/groups', noun: 'groups' },
  { key: 'identities', path: '/iam/v2/identities', noun: 'identities' },
  { key: 'roleBindings', path: '/iam/v2/roleBindings', noun: 'role bindings' },
  { key: 'repos', path: '/registry/v2/repos', noun: 'repos' },
  { key: 'tags', path: '/registry/v2/tags', noun: 'tags' },
];

/** A child's uid is its parent's uid + `/` + 16 hex: the parent is everything before the last slash. */
const parentOf = (uid) => uid.slice(0, Math.max(0, uid.lastIndexOf('/')));
/** Digits compare as numbers: tag 4.9 before 4.10. */
const byName = (a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }) || a.uid.localeCompare(b.uid);

/** ` — description`, when there is one. */
const describe = (item) => (item.description ? [' ', el('span', { class: 'desc' }, `— ${item.description}`)] : []);

function groupBy(items, keyOf) {
  const map = new Map();
  for (const item of items) {
    const key = keyOf(item);
    if (!map.has(key)) map.set(key, []);
    map.get(key).push(item);
  }
  for (const list of map.values()) list.sort(byName);
  return map;
}

/** Groups folded by the user, kept across refreshes. */
const folded = new Set();
/** identity uid → name, for the journal. */
let identityNames = new Map();

/** `load` as a refresh: calls that come while it loads make one more load afterwards. */
function serialized(load) {
  let loading;
  let again = false;
  return async () => {
    if (loading) {
      again = true;
      return loading;
    }
    loading = (async () => {
      do {
        again = false;
        await load();
      } while (again);
    })();
    try {
      await loading;
    } finally {
      loading = undefined;
    }
  };
}

const refreshTree = serialized(loadTree);

async function loadTree() {
  const results = await Promise.allSettled(KINDS.map((k) => listAll(k.path, k.key)));
  if (!readSession()) return;
  const data = {};
  const problems = [];
  KINDS.forEach(({ key, noun }, i) => {
    const r = results[i];
    if (r.status === 'fulfilled') data[key] = r.value;
    else {
      data[key] = { items: [], total: 0 };
      problems.push(r.reason.status === 403 ? `${noun}: not permitted` : r.reason.message);
    }
  });
  say($('tree-error'), problems.length ? `Could not read everything: ${problems.join('; ')}` : '');
  // A failed read of the groups keeps the tree that is shown.
  if (results[0].status === 'rejected') return;
  identityNames = new Map(data.identities.items.map((i) => [i.uid, i.name]));
  // Rows that came before the names did.
  for (const cell of $('journal-rows').querySelectorAll('td[data-identity]')) cell.textContent = identityLabel(cell.dataset.identity);
  $('tree-summary').textContent = KINDS.map(({ key, noun }) => {
    const { items, total } = data[key];
    return total > items.length ? `${items.length} of ${total} ${noun}` : `${items.length} ${noun}`;
  }).join(' · ');
  renderTree(data);
}

function renderTree(data) {
  const groups = data.groups.items;
  const visible = new Set(groups.map((g) => g.uid));
  const children = groupBy(groups, (g) => parentOf(g.uid));
  const identities = groupBy(data.identities.items, (i) => parentOf(i.uid));
  const bindings = groupBy(data.roleBindings.items.map((b) => ({ ...b, name: b.identity?.name ?? '' })), (b) => b.group?.uid ?? parentOf(b.uid));
  const repos = groupBy(data.repos.items, (r) => parentOf(r.uid));
  const tags = groupBy(data.tags.items, (t) => parentOf(t.uid));

  const section = (noun, items, render) => (items?.length ? [el('div', { class: 'kind' }, noun), el('ul', { class: `items ${noun.replace(/ /g, '-')}` }, items.map(render))] : []);
  // uids are in the tooltips: long, and pctl takes names too.
  const identityItem = (i) => el('li', { class: 'identity', 'data-uid': i.uid },
    el('b', { title: i.uid }, i.name), describe(i),
    el('code', { class: 'claim', title: 'claimMatch: issuer · subject' }, `${i.claimMatch?.issuer ?? ''} · ${i.claimMatch?.subject ?? ''}`));
  const bindingItem = (b) => el('li', { class: 'binding', 'data-uid': b.uid, title: b.uid },
    b.identity?.name ?? b.identity?.uid ?? '?', ' ', el('span', { class: 'role' }, b.role?.name ?? b.role?.uid ?? '?'));
  const repoItem = (r) => el('li', { class: 'repo', 'data-uid': r.uid },
    el('b', { title: r.uid }, r.name), describe(r),
    el('span', { class: 'tags' }, (tags.get(r.uid) ?? []).map((t) =>
      el('span', { class: t.deprecated ? 'tag deprecated' : 'tag', title: `${t.digest}${t.deprecated ? ' (deprecated)' : ''}` }, t.name))));

  const groupItem = (g) => {
    const details = el('details', { 'data-uid': g.uid },
      el('summary', { title: g.uid }, el('span', { class: 'group-name' }, g.name), describe(g)),
      section('identities', identities.get(g.uid), identityItem),
      section('role bindings', bindings.get(g.uid), bindingItem),
      section('repos', repos.get(g.uid), repoItem),
      children.has(g.uid) ? el('ul', { class: 'groups' }, children.get(g.uid).map(groupItem)) : []);
    details.open = !folded.has(g.uid);
    details.addEventListener('toggle', () => (details.open ? folded.delete(g.uid) : folded.add(g.uid)));
    return el('li', { class: 'group', 'data-name': g.name }, details);
  };

  // Roots: the groups whose parent the caller cannot see (the organization, for the owner).
  const roots = groups.filter((g) => !visible.has(parentOf(g.uid))).sort(byName);
  $('tree').replaceChildren(...roots.map(groupItem));
  if (!roots.length) $('tree').replaceChildren(el('li', { class: 'summary' }, 'No group is visible to this identity.'));
}

// ---- the request journal ----

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A call that changed data (so the tree may have changed); sign-ins do not count. */
const isWrite = (e) => !READS.has(e.method) && e.status >= 200 && e.status < 300 && !e.path.startsWith('/oauth/');

const identityLabel = (uid) => identityNames.get(uid) ?? `…${uid.slice(-8)}`;

function journalRow(e) {
  const status = e.status === 0 ? (e.fault?.effect ?? '—') : String(e.status);
  const classes = [e.fault ? 'fault' : '', e.status === 0 || e.status >= 400 ? 'failed' : '', e.requestBody || e.responseBody ? 'has-bodies' : ''];
  const row = el('tr', { class: classes.filter(Boolean).join(' ') || undefined, 'data-seq': e.seq, 'data-fault': e.fault?.id },
    el('td', { class: 'time', title: e.time }, e.time.slice(11, 23)),
    el('td', {}, e.method),
    el('td', { class: 'path', title: e.path }, e.path, e.rpc ? el('span', { class: 'rpc' }, e.rpc) : ''),
    el('td', { class: 'num status' }, status),
    el('td', { class: 'num' }, String(e.durationMs)),
    e.identity ? el('td', { 'data-identity': e.identity, title: e.identity }, identityLabel(e.identity)) : el('td'),
    el('td', {}, e.fault ? el('span', { class: 'fault-badge', title: `injected by fault rule ${e.fault.id}` }, `⚡ ${e.fault.id} ${e.fault.effect}`) : ''));
  if (row.classList.contains('has-bodies')) {
    // A click (or Enter) shows the bodies, masked as serve keeps them, in a row below.
    row.tabIndex = 0;
    const toggle = () => {
      const next = row.nextElementSibling;
      if (next?.classList.contains('bodies')) return next.remove();
      row.after(el('tr', { class: 'bodies' }, el('td', { colspan: 7 },
        e.requestBody ? el('pre', {}, `request: ${e.requestBody}`) : '', e.responseBody ? el('pre', {}, `response: ${e.responseBody}`) : '')));
    };
    row.addEventListener('click', toggle);
    row.addEventListener('keydown', (ev) => ev.key === 'Enter' && toggle());
  }
  return row;
}

function addJournalRows(entries) {
  const body = $('journal-rows');
  for (const e of entries) body.prepend(journalRow(e));
  const rows = body.querySelectorAll('tr[data-seq]');
  for (let i = JOURNAL_ROWS; i < rows.length; i++) {
    if (rows[i].nextElementSibling?.classList.contains('bodies')) rows[i].nextElementSibling.remove();
    rows[i].remove();
  }
  show($('journal'), body.children.length > 0);
}

const sleep = (ms, signal) => new Promise((resolve) => {
  const timer = setTimeout(resolve, ms);
  signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
});

/**
 * Long-polls GET /_pctl/requests until `signal` aborts; the tree is reloaded after each write
 * it sees. `ready` is called once the journal's position is known (or it is unavailable), so
 * that a write after it is never missed by a tree read before it.
 */
async function followJournal(signal, ready) {
  try {
    await pollJournal(signal, ready);
  } finally {
    ready();
  }
}

async function pollJournal(signal, ready) {
  let size;
  let after = 0;
  let first = true;
  const note = (message) => {
    say($('journal-note'), message);
    $('journal-state').textContent = '';
  };
  while (!signal.aborted) {
    try {
      if (size === undefined) {
        // How many entries serve keeps (`--journal N`, 0 for none); also the owner check.
        size = (await api('/_pctl/requests?limit=0', signal)).size;
        if (!size) return note('This serve keeps no request journal (it was started with --journal 0).');
      }
      const limit = Math.min(JOURNAL_ROWS, size);
      const query = first ? `limit=${Math.min(100, limit)}` : `after=${after}&wait=${JOURNAL_WAIT_S}&limit=${limit}`;
      const page = await api(`/_pctl/requests?${query}`, signal);
      // A restarted serve counts from 1 again.
      if (page.last < after) after = 0;
      const fresh = page.requests.filter((e) => e.seq > after);
      addJournalRows(fresh);
      if (!first && fresh.some(isWrite)) {
        void refreshTree();
        // A write commits events, and so new deliveries.
        void refreshDeliveries();
      }
      after = Math.max(after, page.last);
      if (first) ready();
      first = false;
      $('journal-state').textContent = '· live';
      say($('journal-error'), '');
    } catch (err) {
      if (signal.aborted) return;
      if (err.status === 403) {
        const who = $('who-name').textContent || 'this identity';
        return note(`The request journal is for the owner of this server (the identity of owner.token); ${who} sees the group tree only, and Refresh shows changes.`);
      }
      // The tree need not wait for a journal that is not there yet.
      ready();
      $('journal-state').textContent = '· reconnecting';
      say($('journal-error'), err.message);
      await sleep(RETRY_MS, signal);
    }
  }
}

// ---- webhook deliveries ----

/** The vendor's event types all start so; the rest says what happened. */
const shortType = (type) => type.replace(/^dev\.chainguard\.api\./, '');

function deliveryRow(d) {
  // Marked like an injected fault in the journal: failed for good, or failing and to be retried.
  const failing = d.state === 'failed' || (d.state === 'pending' && d.attempts > 0);
  const answer = d.lastStatus === undefined ? '' : d.lastStatus === 0 ? 'no answer' : String(d.lastStatus);
  const badge = d.state === 'failed' ? `✗ ${d.state}` : d.state === 'pending' && d.attempts > 0 ? `↻ ${d.state}` : d.state;
  const due = d.nextAttemptTime ? `next attempt ${d.nextAttemptTime}` : undefined;
  return el('tr', { class: [failing ? 'fault' : '', d.state === 'failed' ? 'failed' : ''].filter(Boolean).join(' ') || undefined, 'data-id': d.id, 'data-state': d.state },
    el('td', { class: 'time', title: d.updateTime }, d.updateTime.slice(11, 23)),
    el('td', { class: 'type', title: `${d.type} · ${d.eventId}` }, shortType(d.type)),
    el('td', { class: 'uid', title: d.subject }, `…${d.subject.slice(-8)}`),
    el('td', { class: 'path', title: `${d.sink} (subscription ${d.subscription})` }, d.sink),
    el('td', { class: 'delivery-state', title: due }, failing ? el('span', { class: 'fault-badge' }, badge) : badge),
    el('td', { class: 'num' }, String(d.attempts)),
    el('td', { class: 'num status', title: d.lastError }, answer));
}

let deliveriesTimer;

async function loadDeliveries() {
  clearTimeout(deliveriesTimer);
  if ($('deliveries-panel').hidden) return;
  let deliveries;
  try {
    ({ deliveries } = await api(`/_pctl/deliveries?limit=${DELIVERY_ROWS}`));
  } catch (err) {
    if (!readSession()) return;
    // Like the journal, the delivery log is the owner's: others do not see the panel.
    if (err.status === 403) return show($('deliveries-panel'), false);
    $('deliveries-state').textContent = '';
    return say($('deliveries-error'), err.message);
  }
  if (!readSession()) return;
  say($('deliveries-error'), '');
  $('deliveries-state').textContent = deliveries.length ? `· ${deliveries.length === DELIVERY_ROWS ? 'newest ' : ''}${deliveries.length}` : '';
  say($('deliveries-note'), deliveries.length ? '' : 'No deliveries yet: events are delivered to the sinks of subscriptions (pctl events subscriptions create).');
  $('deliveries-rows').replaceChildren(...deliveries.map(deliveryRow));
  show($('deliveries'), deliveries.length > 0);
  // Attempts are made by serve, not by calls the journal would show: look again when the next is due.
  const due = deliveries.filter((d) => d.nextAttemptTime).map((d) => Date.parse(d.nextAttemptTime));
  if (due.length) {
    const wait = Math.min(Math.max(Math.min(...due) - Date.now(), DELIVERY_RECHECK_MIN_MS), DELIVERY_RECHECK_MAX_MS);
    deliveriesTimer = setTimeout(() => void refreshDeliveries(), wait);
  }
}

const refreshDeliveries = serialized(loadDeliveries);

// ---- the page ----

let following;

function signOut(message) {
  sessionStorage.removeItem(TOKEN_KEY);
  following?.abort();
  following = undefined;
  clearTimeout(deliveriesTimer);
  $('tree').replaceChildren();
  $('journal-rows').replaceChildren();
  $('deliveries-rows').replaceChildren();
  showSignIn(message);
}

async function showConsole() {
  show($('sign-in'), false);
  show($('console'), true);
  show($('refresh'), true);
  show($('sign-out'), true);
  try {
    const me = await api('/oauth/userinfo');
    $('who-name').textContent = me.identity?.name ?? me.sub;
    $('who-name').title = me.identity?.uid ?? '';
    show($('who'), true);
  } catch (err) {
    if (!readSession()) return;
    say($('tree-error'), err.message);
  }
  following = new AbortController();
  await new Promise((resolve) => void followJournal(following.signal, resolve));
  await Promise.all([refreshTree().catch((err) => say($('tree-error'), err.message)), refreshDeliveries()]);
}

async function start() {
  $('server').textContent = location.host;
  $('sign-in-button').addEventListener('click', () => void startSignIn().catch((err) => say($('sign-in-error'), err.message)));
  $('sign-out').addEventListener('click', () => signOut());
  $('refresh').addEventListener('click', () => {
    void refreshTree().catch((err) => say($('tree-error'), err.message));
    void refreshDeliveries();
  });
  const params = new URLSearchParams(location.search);
  if (params.has('code') || params.has('error')) {
    try {
      await finishSignIn(params);
    } catch (err) {
      showSignIn(err.message);
      return;
    }
  }
  if (readSession()) await showConsole();
  else showSignIn();
}

void start();
