// The console's client of the Monitor Protocol API: the same REST calls any client makes, from this page's origin.
// Tokens live in this tab's sessionStorage only: never in a URL, a query string, the page's address or a log line.

const BASE = '/mp/v0';
const STORE = 'mp.console.v1';

function load() {
  try {
    const s = JSON.parse(sessionStorage.getItem(STORE) || '{}');
    return { monitors: s.monitors || {}, subscriptions: s.subscriptions || {}, samples: s.samples || {} };
  } catch (e) {
    return { monitors: {}, subscriptions: {}, samples: {} };
  }
}

function save(s) {
  sessionStorage.setItem(STORE, JSON.stringify(s));
}

/** What this tab holds: tokens of monitors (owner, subscribe) and of subscriptions, and its state samples. */
export const tokens = {
  /** The monitor's tokens this tab holds: {owner?, subscribe?}. */
  monitor(id) {
    return load().monitors[id] || {};
  },
  /** The token to read a monitor with: its owner token, else its subscribe token, else none. */
  readerOf(id) {
    const m = this.monitor(id);
    return m.owner || m.subscribe || null;
  },
  keepMonitor(id, kind, token) {
    const s = load();
    s.monitors[id] = { ...(s.monitors[id] || {}), [kind]: token };
    save(s);
  },
  /** Every distinct monitor token held (owner and subscribe), for listing what each may see. */
  monitorTokens() {
    const out = new Set();
    for (const m of Object.values(load().monitors)) {
      if (m.owner) out.add(m.owner);
      if (m.subscribe) out.add(m.subscribe);
    }
    return [...out];
  },
  subscriptions(monitor) {
    return Object.entries(load().subscriptions)
      .filter(([, v]) => !monitor || v.monitor === monitor)
      .map(([id, v]) => ({ id, ...v }));
  },
  subscription(id) {
    const v = load().subscriptions[id];
    return v ? { id, ...v } : null;
  },
  keepSubscription(id, fields) {
    const s = load();
    s.subscriptions[id] = { ...(s.subscriptions[id] || {}), ...fields };
    save(s);
  },
  forgetSubscription(id) {
    const s = load();
    delete s.subscriptions[id];
    save(s);
  },
  count() {
    const s = load();
    let n = 0;
    for (const m of Object.values(s.monitors)) n += (m.owner ? 1 : 0) + (m.subscribe ? 1 : 0);
    return n + Object.values(s.subscriptions).filter((v) => v.token).length;
  },
  forgetAll() {
    sessionStorage.removeItem(STORE);
  },
  /** Samples of a monitor's observation counter, by minute: {minute: [first, last]}. Not secret, kept beside. */
  sample(id, counter, now = Date.now()) {
    const s = load();
    const minute = Math.floor(now / 60000);
    const series = s.samples[id] || {};
    const seen = series[minute];
    series[minute] = seen ? [seen[0], counter] : [counter, counter];
    for (const k of Object.keys(series)) if (Number(k) < minute - 60) delete series[k];
    s.samples[id] = series;
    save(s);
    return series;
  },
};

/**
 * One API call. Answers {ok, status, body}; a refusal's body is the protocol error {code, error, done, ...}, and a
 * server that did not answer is status 0 with a body saying so (no code: the server gave none).
 */
export async function call(method, path, { token, body } = {}) {
  const headers = { Accept: 'application/json' };
  if (token) headers.Authorization = 'Bearer ' + token;
  const init = { method, headers, cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(BASE + path, init);
  } catch (e) {
    return { ok: false, status: 0, body: { code: null, error: 'the server did not answer (' + e.message + ')' } };
  }
  let parsed = null;
  const text = await response.text();
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch (e) {
    parsed = { code: null, error: 'an answer that is not JSON: ' + text.slice(0, 200) };
  }
  return { ok: response.ok, status: response.status, body: parsed };
}

/**
 * Follows a subscription's Server-Sent Events stream. EventSource cannot send an Authorization header, and a token
 * must not go into the URL, so this reads the stream with fetch and parses the events itself; after the stream
 * ends it reconnects with Last-Event-ID (the seq of the last observation it got), as EventSource would.
 * Handlers: onOpen(), onObservation(seq, event), onHeartbeat({head, cursor}), onRefusal(status, body) (the stream
 * was refused or sent an error event: not retried), onDown(message) (no answer; retried). Returns {stop()}.
 */
export function follow(subscription, token, handlers, { lastEventId = null } = {}) {
  const controller = new AbortController();
  let last = lastEventId;
  let retry = 3000;
  let stopped = false;

  async function once() {
    const headers = { Accept: 'text/event-stream', Authorization: 'Bearer ' + token };
    if (last !== null) headers['Last-Event-ID'] = String(last);
    let response;
    try {
      response = await fetch(BASE + '/subscriptions/' + encodeURIComponent(subscription) + '/stream', {
        headers,
        cache: 'no-store',
        credentials: 'omit',
        signal: controller.signal,
      });
    } catch (e) {
      return stopped ? 'stop' : 'down';
    }
    if (!response.ok) {
      let body;
      try {
        body = await response.json();
      } catch (e) {
        body = { code: null, error: 'HTTP ' + response.status };
      }
      handlers.onRefusal(response.status, body);
      return 'stop';
    }
    handlers.onOpen();
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return 'down';
        buffer += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (dispatch(frame) === 'stop') return 'stop';
        }
      }
    } catch (e) {
      return stopped ? 'stop' : 'down';
    }
  }

  function dispatch(frame) {
    let id = null;
    let event = 'message';
    const data = [];
    for (const line of frame.split('\n')) {
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') id = value;
      else if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
      else if (field === 'retry' && /^\d+$/.test(value)) retry = Number(value);
    }
    if (data.length === 0) return 'go';
    let body;
    try {
      body = JSON.parse(data.join('\n'));
    } catch (e) {
      return 'go';
    }
    if (event === 'observation') {
      if (id !== null) last = id;
      handlers.onObservation(Number(id), body);
    } else if (event === 'heartbeat') {
      handlers.onHeartbeat(body);
    } else if (event === 'error') {
      handlers.onRefusal(200, body);
      return 'stop';
    }
    return 'go';
  }

  (async () => {
    while (!stopped) {
      const outcome = await once();
      if (outcome === 'stop' || stopped) return;
      handlers.onDown('the stream ended; reconnecting in ' + retry / 1000 + ' s');
      await new Promise((resolve) => setTimeout(resolve, retry));
    }
  })();

  return {
    stop() {
      stopped = true;
      controller.abort();
    },
  };
}
