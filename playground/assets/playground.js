// docsapi's GraphQL playground: GraphiQL (assets/vendor, served by docsapi
// itself) with a token field whose value every request carries as
// `Authorization: Bearer <token>`. The token stays in this tab
// (sessionStorage); the schema is fetched again when it changes.
(function () {
  'use strict';

  var STORAGE_KEY = 'docsapi.playground.token';
  var endpoint = location.pathname.replace(/\/+$/, '') || '/graphql';
  var input = document.getElementById('token');

  var DEFAULT_QUERY = [
    '# The docsapi GraphQL playground',
    '#',
    '# 1. Paste an API token in the field above:',
    '#    the first start printed one; from a',
    '#    clone, another one is made by',
    '#    go run ./cmd/docsapi admin token \\',
    '#      --db ./data/docsapi.db \\',
    '#      --email admin@localhost',
    '# 2. Run this query (the ▶ button or',
    '#    Ctrl-Enter): who you are and, for',
    '#    your organizations\' first spaces,',
    '#    a page view in one request: the',
    '#    collection path, the page tree, the',
    '#    first page\'s links and backlinks',
    '#    and the comments with their authors.',
    '#    Every field below an object is an',
    '#    edge to another one.',
    '# 3. The book icon on the left opens the',
    '#    schema with its descriptions.',
    '',
    'query PageView {',
    '  viewer {',
    '    id',
    '    displayName',
    '    email',
    '  }',
    '  organizations(limit: 5) {',
    '    items {',
    '      id',
    '      title',
    '      spaces(limit: 3) {',
    '        items {',
    '          id',
    '          title',
    '          collectionPath { id title }',
    '          activeRevision {',
    '            pages {',
    '              id',
    '              title',
    '              path',
    '              links(limit: 5) { count }',
    '              backlinks(limit: 5) { count }',
    '            }',
    '          }',
    '          commentList(limit: 10) {',
    '            items {',
    '              id',
    '              body { markdown }',
    '              postedBy { id displayName }',
    '              replyList(limit: 3) { count }',
    '            }',
    '          }',
    '        }',
    '      }',
    '    }',
    '  }',
    '}',
    ''
  ].join('\n');

  function readToken() {
    try { return sessionStorage.getItem(STORAGE_KEY) || ''; } catch (e) { return ''; }
  }
  function saveToken(v) {
    try { sessionStorage.setItem(STORAGE_KEY, v); } catch (e) { /* private mode: the field still works */ }
  }
  function currentToken() { return input.value.trim(); }

  // makeFetcher builds the fetcher GraphiQL calls; a new one per token
  // makes GraphiQL fetch the schema again with it.
  // Subscriptions go over a WebSocket (graphql-transport-ws, GraphiQL's
  // own graphql-ws client), the token in connection_init's payload (a
  // browser cannot set headers on a WebSocket); everything else is a POST.
  var wsEndpoint = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + endpoint;
  function isSubscription(doc, name, text) {
    if (!doc) return /(^|[}\s])subscription\b/.test(text || '');
    return (doc.definitions || []).some(function (d) {
      return d.kind === 'OperationDefinition' && d.operation === 'subscription' && (!name || (d.name && d.name.value === name));
    });
  }
  function makeFetcher(token) {
    var live = GraphiQL.createFetcher({ url: endpoint, subscriptionUrl: wsEndpoint, wsConnectionParams: { Authorization: 'Bearer ' + token } });
    return function (params, opts) {
      if (isSubscription(opts && opts.documentAST, params.operationName, params.query)) return live(params, opts);
      var headers = { 'Content-Type': 'application/json', Accept: 'application/json' };
      var extra = (opts && opts.headers) || {};
      var hasAuth = false;
      Object.keys(extra).forEach(function (k) {
        headers[k] = extra[k];
        if (k.toLowerCase() === 'authorization') hasAuth = true;
      });
      if (token && !hasAuth) headers.Authorization = 'Bearer ' + token;
      return fetch(endpoint, { method: 'POST', headers: headers, body: JSON.stringify(params), credentials: 'omit' })
        .then(function (res) {
          return res.text().then(function (text) {
            try { return JSON.parse(text); } catch (e) { return { errors: [{ message: 'HTTP ' + res.status + ': ' + text }] }; }
          });
        });
    };
  }

  // Without a token nothing is sent: the schema is fetched once a token is
  // there (schema null tells GraphiQL not to introspect), and running a
  // query says what is missing instead of showing the server's 401.
  function noTokenFetcher() {
    return Promise.resolve({ errors: [{ message: 'Paste an API token in the field above first.' }] });
  }

  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  function render() {
    var token = currentToken();
    input.classList.toggle('missing', token === '');
    var props = {
      fetcher: token ? makeFetcher(token) : noTokenFetcher,
      defaultQuery: DEFAULT_QUERY,
      isHeadersEditorEnabled: true,
      shouldPersistHeaders: false,
      defaultEditorToolsVisibility: false
    };
    if (!token) props.schema = null;
    root.render(React.createElement(GraphiQL, props));
  }

  input.value = readToken();
  var timer = null;
  input.addEventListener('input', function () {
    saveToken(currentToken());
    clearTimeout(timer);
    timer = setTimeout(render, 300);
  });
  render();
})();
