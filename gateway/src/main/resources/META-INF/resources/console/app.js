// The web console: the monitors this tab's tokens may see, and a monitor's page with its live feed. Plain DOM, no
// framework, nothing fetched from elsewhere. Every value from the server is put in as text, never as markup.
import { call, follow, tokens } from './api.js';

const view = document.getElementById('view');
let leaving = []; // what the current view must stop when another one opens (timers, streams)

// ---- small DOM helpers -------------------------------------------------------------------------------------------

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'testid') el.dataset.testid = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c);
  return el;
}

/** A refusal as the API gave it: status, code and message, then the error's other fields. */
function refusal(answer, what) {
  const b = answer.body || {};
  const extra = { ...b };
  delete extra.code;
  delete extra.error;
  if (Array.isArray(extra.done) && extra.done.length === 0) delete extra.done;
  return h(
    'div',
    { class: 'refusal', testid: 'refusal', role: 'alert' },
    h('strong', {}, what ? what + ' refused: ' : 'refused: '),
    h('span', { class: 'status' }, answer.status ? String(answer.status) : 'no answer'),
    ' ',
    b.code ? h('code', { class: 'code', testid: 'refusal-code' }, b.code) : null,
    ' ',
    h('span', { class: 'message', testid: 'refusal-message' }, b.error || ''),
    Object.keys(extra).length ? h('pre', { class: 'extra' }, JSON.stringify(extra, null, 1)) : null,
  );
}

function ok(text, testid) {
  return h('div', { class: 'ok', testid: testid || 'ok', role: 'status' }, text);
}

function field(label, input) {
  return h('label', { class: 'field' }, h('span', {}, label), input);
}

function select(name, values, chosen) {
  return h('select', { name }, values.map((v) => h('option', { value: v, selected: v === chosen }, v === '' ? '(default)' : v)));
}

function formValues(form) {
  const out = {};
  for (const el of form.elements) {
    if (!el.name) continue;
    if (el.type === 'checkbox') {
      (out[el.name] = out[el.name] || []);
      if (el.checked) out[el.name].push(el.value);
    } else out[el.name] = el.value.trim();
  }
  return out;
}

function ago(seconds) {
  if (seconds === null || seconds === undefined) return 'never';
  if (seconds < 120) return seconds + ' s ago';
  if (seconds < 7200) return Math.floor(seconds / 60) + ' min ago';
  return Math.floor(seconds / 3600) + ' h ago';
}

function held() {
  const n = tokens.count();
  document.getElementById('held').textContent = n === 0 ? 'no tokens held' : n + (n === 1 ? ' token' : ' tokens') + ' held in this tab';
}

// ---- what the state's words mean, for people -----------------------------------------------------------------------

const GAPS = {
  independence_unknown: 'No standing declaration by a human owner of which actors are independent: agreement cannot be told from one source repeated.',
  no_event_provenance: 'At least one row carries no provenance origin (a bridged or foreign record).',
  single_actor: 'Exactly one outside actor reports here: nothing corroborates it.',
  stale_source: 'The source has gone quiet for longer than the monitor allows (ttl_seconds), or its Kafka topic is missing.',
  no_subscribers: 'No active subscription: nobody is reading this monitor.',
  unattested_origin: 'The monitor is not attested: its owner was not registered with the server\u2019s registration token.',
};

const INPUTS = {
  independence: 'independence (needs a human owner\u2019s declaration of independent actors)',
  corroboration: 'corroboration (needs a claim on a subject by an outside actor)',
  track_record: 'track record (needs a first claim)',
};

function liveBadge(live, active) {
  const reason = live ? (live.value ? 'live' : live.reason || 'inactive') : active ? 'live' : 'inactive';
  return h('span', { class: 'badge live-' + reason, testid: 'live' }, reason);
}

function confidenceBlock(state) {
  const c = state.confidence || {};
  const inputs = c.inputs || {};
  const missing = inputs.missing || [];
  const gaps = c.gaps || [];
  const reasons = c.gap_reasons || {};
  return h(
    'div',
    { class: 'confidence', testid: 'confidence' },
    h(
      'div',
      { class: 'value' },
      'confidence ',
      h('strong', { testid: 'confidence-value' }, c.value === null || c.value === undefined ? 'not computed' : String(c.value)),
      missing.length ? h('span', { class: 'muted' }, ' \u2014 missing: ', missing.map((m) => INPUTS[m] || m).join('; ')) : null,
    ),
    gaps.length
      ? h(
          'ul',
          { class: 'gaps', testid: 'gaps' },
          gaps.map((g) =>
            h(
              'li',
              { class: 'gap gap-' + g, testid: 'gap-' + g },
              h('code', {}, g),
              ' ',
              h('span', {}, GAPS[g] || ''),
              reasons[g] ? h('span', { class: 'reason', testid: 'gap-reason' }, ' (' + reasons[g] + ')') : null,
            ),
          ),
        )
      : h('p', { class: 'muted' }, 'no gaps'),
  );
}

/** Rows per minute over the last 30 minutes, from this tab's samples of counters.observations. */
function sparkline(id, state) {
  const series = tokens.sample(id, state.counters ? state.counters.observations : 0);
  const now = Math.floor(Date.now() / 60000);
  const bars = [];
  let previous = null;
  for (let m = now - 60; m <= now; m++) {
    const s = series[m];
    const count = s ? s[1] - (previous === null ? s[0] : previous) : 0;
    if (s) previous = s[1];
    if (m > now - 30) bars.push(Math.max(0, count));
  }
  const max = Math.max(1, ...bars);
  const width = 120;
  const height = 24;
  const step = width / bars.length;
  const total = bars.reduce((a, b) => a + b, 0);
  const shape = svg(
    'svg',
    { width, height, viewBox: `0 0 ${width} ${height}`, class: 'spark', role: 'img' },
    svg('title', {}, document.createTextNode(total + ' rows in the last 30 minutes seen by this tab, per minute')),
    ...bars.map((b, i) =>
      svg('rect', { x: (i * step + 0.5).toFixed(1), y: (height - (b / max) * (height - 2)).toFixed(1), width: (step - 1).toFixed(1), height: ((b / max) * (height - 2)).toFixed(1), class: 'bar' }),
    ),
    svg('line', { x1: 0, y1: height - 0.5, x2: width, y2: height - 0.5, class: 'axis' }),
  );
  return h('span', { class: 'sparkline', testid: 'sparkline', title: 'rows per minute, last 30 min (sampled by this tab)' }, shape, h('span', { class: 'muted' }, ' ' + bars[bars.length - 1] + '/min'));
}

// ---- the list of monitors ------------------------------------------------------------------------------------------

async function visibleMonitors() {
  // One bearer per request, as the API takes them: what no token sees, then what each held token sees in addition.
  const asked = [null, ...tokens.monitorTokens()];
  const answers = await Promise.all(asked.map((t) => call('GET', '/monitors', { token: t })));
  const byId = new Map();
  const refused = [];
  for (const a of answers) {
    if (!a.ok) {
      refused.push(a);
      continue;
    }
    for (const m of a.body.monitors || []) byId.set(m.id, m);
  }
  return { monitors: [...byId.values()].sort((a, b) => a.id.localeCompare(b.id)), refused };
}

function createForm() {
  const result = h('div', { class: 'result', testid: 'create-result' });
  const form = h(
    'form',
    { class: 'panel', testid: 'create-form' },
    h('h2', {}, 'Create a monitor'),
    h(
      'div',
      { class: 'row' },
      field('id', h('input', { name: 'id', placeholder: 'ci', required: true, pattern: '[A-Za-z0-9_.\\-]{2,64}' })),
      field('name', h('input', { name: 'name', placeholder: 'CI' })),
      field('visibility', select('visibility', ['private', 'shared', 'public'], 'private')),
      field('horizon', select('horizon', ['', 'event', 'minute', 'hour', 'day', 'week', 'month'], '')),
    ),
    h(
      'div',
      { class: 'row' },
      field('types (comma-separated, reverse-DNS)', h('input', { name: 'types', placeholder: 'com.example.ci.run', size: 36 })),
      field('ttl_seconds', h('input', { name: 'ttl_seconds', type: 'number', min: 1, placeholder: 'none' })),
      h(
        'fieldset',
        { class: 'caps' },
        h('legend', {}, 'capabilities'),
        ['observe', 'react', 'act'].map((c) => h('label', {}, h('input', { type: 'checkbox', name: 'capabilities', value: c, checked: c === 'observe' }), c)),
      ),
    ),
    h('button', { type: 'submit', testid: 'create-submit' }, 'create'),
    result,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const v = formValues(form);
    const body = { id: v.id, visibility: v.visibility, capabilities: v.capabilities };
    if (v.name) body.name = v.name;
    if (v.horizon) body.horizon = v.horizon;
    if (v.types) body.types = v.types.split(',').map((t) => t.trim()).filter(Boolean);
    if (v.ttl_seconds) body.ttl_seconds = Number(v.ttl_seconds);
    const a = await call('POST', '/monitors', { body });
    result.replaceChildren();
    if (!a.ok) {
      result.append(refusal(a, 'create'));
      return;
    }
    const id = a.body.monitor.id;
    tokens.keepMonitor(id, 'owner', a.body.owner_token);
    if (a.body.subscribe_token) tokens.keepMonitor(id, 'subscribe', a.body.subscribe_token);
    held();
    result.append(
      ok('created ' + id + '; its owner token' + (a.body.subscribe_token ? ' and subscribe token are' : ' is') + ' kept in this tab\u2019s session storage (the server shows them once)', 'created'),
      h('p', {}, h('a', { href: '#/m/' + encodeURIComponent(id), testid: 'open-created' }, 'open ' + id)),
    );
    refreshList();
  });
  return form;
}

function tokenForm(onAdded) {
  const result = h('div', { class: 'result', testid: 'token-result' });
  const form = h(
    'form',
    { class: 'panel', testid: 'token-form' },
    h('h2', {}, 'Use a token'),
    h('p', { class: 'muted' }, 'A private or shared monitor is visible only with its owner or subscribe token; a subscription\u2019s token reads its feed. Kept in this tab only.'),
    h(
      'div',
      { class: 'row' },
      field('kind', select('kind', ['owner', 'subscribe', 'subscription'], 'owner')),
      field('monitor id', h('input', { name: 'id', required: true })),
      field('subscription id (for a subscription token)', h('input', { name: 'subscription', placeholder: 'sub-\u2026' })),
      field('token', h('input', { name: 'token', type: 'password', required: true, autocomplete: 'off', testid: 'token-input' })),
    ),
    h('button', { type: 'submit', testid: 'token-submit' }, 'use'),
    result,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const v = formValues(form);
    result.replaceChildren();
    if (v.kind === 'subscription') {
      if (!v.subscription) {
        result.append(h('div', { class: 'refusal', testid: 'refusal' }, 'not kept: a subscription token needs its subscription id'));
        return;
      }
      // Its cursor and lag are unknown until the stream's first heartbeat or an ack answers.
      tokens.keepSubscription(v.subscription, { token: v.token, monitor: v.id, subscriber: null });
      result.append(ok('subscription ' + v.subscription + ' of ' + v.id + ' kept', 'token-kept'));
    } else {
      const a = await call('GET', '/monitors/' + encodeURIComponent(v.id), { token: v.token });
      if (!a.ok) {
        result.append(refusal(a, 'that token'));
        return;
      }
      tokens.keepMonitor(v.id, v.kind, v.token);
      result.append(ok(v.kind + ' token for ' + v.id + ' kept', 'token-kept'));
    }
    form.elements.token.value = '';
    held();
    if (onAdded) onAdded();
  });
  return form;
}

let refreshList = () => {};

async function listView() {
  const list = h('div', { class: 'monitors', testid: 'monitors' }, h('p', { class: 'muted' }, 'Loading\u2026'));
  const problems = h('div', {});
  view.replaceChildren(h('h1', {}, 'Monitors'), problems, list, h('div', { class: 'forms' }, createForm(), tokenForm(() => refreshList())));

  async function refresh() {
    const { monitors, refused } = await visibleMonitors();
    problems.replaceChildren(...refused.map((a) => refusal(a, 'listing')));
    const states = await Promise.all(
      monitors.map((m) => call('GET', '/monitors/' + encodeURIComponent(m.id) + '/state', { token: tokens.readerOf(m.id) })),
    );
    if (monitors.length === 0) {
      list.replaceChildren(h('p', { class: 'muted', testid: 'no-monitors' }, 'No monitor is visible to this tab: public ones show here, private and shared ones with their token.'));
      return;
    }
    list.replaceChildren(
      ...monitors.map((m, i) => {
        const s = states[i];
        const stale = s.ok && (s.body.confidence?.gaps || []).includes('stale_source');
        return h(
          'article',
          { class: 'monitor' + (stale ? ' stale' : ''), testid: 'monitor-' + m.id },
          h(
            'div',
            { class: 'title' },
            h('a', { href: '#/m/' + encodeURIComponent(m.id), testid: 'open-monitor' }, m.id),
            m.name && m.name !== m.id ? h('span', { class: 'muted' }, ' ' + m.name) : null,
            ' ',
            h('span', { class: 'badge vis-' + m.visibility }, m.visibility),
            ' ',
            s.ok ? liveBadge(s.body.live) : liveBadge(null, m.active),
            stale ? h('span', { class: 'badge stale-source', testid: 'stale' }, 'stale source') : null,
            h('span', { class: 'spacer' }),
            s.ok ? sparkline(m.id, s.body) : null,
          ),
          s.ok
            ? h(
                'div',
                { class: 'facts' },
                h('span', {}, 'head ', h('strong', { testid: 'head' }, String(s.body.head))),
                h('span', {}, 'rows ', String(s.body.counters.observations)),
                h('span', {}, 'rejected ', String(s.body.counters.rejected)),
                h('span', {}, 'subscriptions ', String(s.body.counters.subscriptions_active)),
                h('span', {}, 'contradictions open ', String(s.body.contradictions_open)),
                h('span', {}, 'last row ', ago(s.body.ages.since_last_observation_s)),
              )
            : refusal(s, 'state'),
          s.ok ? confidenceBlock(s.body) : null,
        );
      }),
    );
  }
  refreshList = refresh;
  await refresh();
  const timer = setInterval(refresh, 5000);
  leaving.push(() => clearInterval(timer));
  leaving.push(() => (refreshList = () => {}));
}

// ---- one monitor ---------------------------------------------------------------------------------------------------

async function monitorView(id) {
  const title = h('h1', {}, h('a', { href: '#/' }, 'Monitors'), ' / ', id);
  const top = h('div', {}, h('p', { class: 'muted' }, 'Loading\u2026'));
  view.replaceChildren(title, top);
  const got = await call('GET', '/monitors/' + encodeURIComponent(id), { token: tokens.readerOf(id) });
  if (!got.ok) {
    top.replaceChildren(refusal(got, 'reading ' + id), tokenForm(() => route()));
    return;
  }
  let monitor = got.body;
  const owner = tokens.monitor(id).owner || null;

  const head = h('div', { class: 'panel' });
  const statePanel = h('div', { class: 'panel', testid: 'state' });
  const contradictions = h('div', { class: 'panel', testid: 'contradictions' });
  const subsPanel = h('div', { class: 'panel', testid: 'subscriptions' });
  const leasesPanel = h('div', { class: 'panel', testid: 'leases' });
  const feedStatus = h('span', { class: 'muted', testid: 'feed-status' }, 'not following');
  const feedRows = h('tbody', { testid: 'feed-rows' });
  const feedPanel = h(
    'div',
    { class: 'panel feed', testid: 'feed' },
    h('h2', {}, 'Live feed ', feedStatus),
    h('table', {}, h('thead', {}, h('tr', {}, ['seq', 'time', 'type', 'subject', 'actor', 'origin / tier', 'data'].map((c) => h('th', {}, c)))), feedRows),
  );
  top.replaceChildren(
    head,
    h('div', { class: 'columns' }, h('div', {}, statePanel, contradictions, leasesPanel), h('div', {}, subsPanel, publishForm(), actionsForm())),
    feedPanel,
  );

  const seen = new Map(); // seq -> event, what the feed showed
  const openContradictions = new Map(); // subject -> seq
  const leases = new Map(); // subject -> last lease row's payload and seq
  let following = null; // {id, stream}

  function renderHead() {
    head.replaceChildren(
      h('div', { class: 'title' }, h('strong', {}, monitor.name || monitor.id), ' ', h('span', { class: 'badge vis-' + monitor.visibility }, monitor.visibility), ' owner ', h('code', {}, monitor.owner), ' version ', String(monitor.version)),
      h('div', { class: 'muted' }, 'types: ', (monitor.types || []).join(', ') || 'none declared', ' \u00b7 capabilities: ', (monitor.capabilities || []).join(', '), ' \u00b7 horizon ', monitor.horizon, monitor.ttl_seconds ? ' \u00b7 ttl ' + monitor.ttl_seconds + ' s' : ''),
      ...(owner ? [] : [h('p', { class: 'muted' }, 'This tab holds no owner token for ' + id + ': publishing and pause/resume/retire will be refused.')]),
    );
  }

  async function refreshState() {
    const s = await call('GET', '/monitors/' + encodeURIComponent(id) + '/state', { token: tokens.readerOf(id) });
    if (!s.ok) {
      statePanel.replaceChildren(h('h2', {}, 'State'), refusal(s, 'state'));
      return;
    }
    const st = s.body;
    const stale = (st.confidence?.gaps || []).includes('stale_source');
    statePanel.replaceChildren(
      h('h2', {}, 'State ', liveBadge(st.live), stale ? h('span', { class: 'badge stale-source', testid: 'stale' }, 'stale source') : null, ' ', sparkline(id, st)),
      h(
        'table',
        { class: 'kv', testid: 'counters' },
        h('tr', {}, h('th', {}, 'head'), h('td', { testid: 'state-head' }, String(st.head)), h('th', {}, 'retention floor'), h('td', {}, String(st.retention_floor))),
        h('tr', {}, h('th', {}, 'rows'), h('td', { testid: 'count-observations' }, String(st.counters.observations)), h('th', {}, 'rejected'), h('td', { testid: 'count-rejected' }, String(st.counters.rejected))),
        h('tr', {}, h('th', {}, 'delivered'), h('td', {}, String(st.counters.delivered)), h('th', {}, 'acted'), h('td', {}, String(st.counters.acted))),
        h('tr', {}, h('th', {}, 'subscriptions active'), h('td', {}, String(st.counters.subscriptions_active)), h('th', {}, 'undecodable'), h('td', {}, String(st.counters.undecodable ?? 0))),
        h('tr', {}, h('th', {}, 'last row'), h('td', {}, ago(st.ages.since_last_observation_s)), h('th', {}, 'last source contact'), h('td', {}, ago(st.ages.since_last_source_contact_s))),
        h('tr', {}, h('th', {}, 'last pull'), h('td', {}, ago(st.ages.since_last_pull_s)), h('th', {}, 'state as of seq'), h('td', {}, String(st.as_of_seq))),
      ),
      confidenceBlock(st),
    );
    renderContradictions(st.contradictions_open);
  }

  function renderContradictions(count) {
    contradictions.replaceChildren(
      h('h2', {}, 'Contradictions'),
      h('p', {}, 'open (from the state): ', h('strong', { testid: 'contradictions-open' }, String(count))),
      openContradictions.size
        ? h('ul', {}, [...openContradictions].map(([subject, seq]) => h('li', {}, h('code', {}, subject || '(the monitor as a whole)'), ' opened at seq ' + seq)))
        : h('p', { class: 'muted' }, count ? 'opened before what the feed shows' : 'none in the feed'),
    );
  }

  function renderLeases() {
    const rows = [...leases].sort((a, b) => a[0].localeCompare(b[0]));
    leasesPanel.replaceChildren(
      h('h2', {}, 'Leases'),
      rows.length
        ? h(
            'table',
            { class: 'list' },
            h('tr', {}, ['subject', 'last action', 'holder', 'expires', 'seq'].map((c) => h('th', {}, c))),
            rows.map(([subject, l]) =>
              h(
                'tr',
                { testid: 'lease-' + subject },
                h('td', {}, subject),
                h('td', {}, l.payload.action + (l.payload.dead_letter ? ' (dead letter)' : '')),
                h('td', {}, ['claim', 'renew'].includes(l.payload.action) ? l.payload.subscription : l.payload.holder || '\u2014'),
                h('td', {}, ['claim', 'renew'].includes(l.payload.action) ? l.payload.expires : '\u2014'),
                h('td', {}, String(l.seq)),
              ),
            ),
          )
        : h('p', { class: 'muted' }, 'no lease rows in the feed'),
    );
  }

  const subResult = h('div', { class: 'result', testid: 'sub-result' }); // kept across re-renders of the panel
  function renderSubscriptions() {
    const mine = tokens.subscriptions(id);
    const result = subResult;
    const form = h(
      'form',
      { testid: 'subscribe-form' },
      h(
        'div',
        { class: 'row' },
        field('subscriber', h('input', { name: 'subscriber', required: true, placeholder: 'human:me' })),
        field('from', h('input', { name: 'from', placeholder: 'cursor 0, or head, or a seq', size: 10 })),
        h('fieldset', { class: 'caps' }, h('legend', {}, 'capabilities'), ['observe', 'react', 'act'].map((c) => h('label', {}, h('input', { type: 'checkbox', name: 'capabilities', value: c, checked: c === 'observe' }), c))),
      ),
      h('button', { type: 'submit', testid: 'subscribe-submit' }, 'subscribe'),
    );
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const v = formValues(form);
      const body = { monitor: id, subscriber: v.subscriber, capabilities: v.capabilities };
      if (v.from) body.from = /^\d+$/.test(v.from) ? Number(v.from) : v.from;
      const a = await call('POST', '/subscriptions', { token: tokens.readerOf(id), body });
      if (!a.ok) {
        result.replaceChildren(refusal(a, 'subscribe'));
        return;
      }
      const sub = a.body.subscription;
      tokens.keepSubscription(sub.id, { monitor: id, subscriber: sub.subscriber, token: a.body.token, cursor: sub.cursor, lag: sub.lag, head: null });
      held();
      result.replaceChildren(ok('subscribed ' + sub.id + '; its token is kept in this tab', 'subscribed'));
      if (following) renderSubscriptions();
      else startFollowing(sub.id);
    });
    subsPanel.replaceChildren(
      h('h2', {}, 'Subscriptions'),
      mine.length
        ? h(
            'table',
            { class: 'list' },
            h('tr', {}, h('th', {}, 'id'), h('th', {}, 'subscriber'), h('th', {}, 'cursor'), h('th', { title: 'rows after the cursor that the subscription\u2019s filter matches, as the last answer (subscribe or ack) said' }, 'lag'), h('th', {}, '')),
            mine.map((s) => {
              const cursor = h('input', { type: 'number', min: 0, name: 'cursor', size: 6, value: nextCursor(s), testid: 'ack-cursor' });
              const ackResult = h('span', { class: 'result' });
              return h(
                'tr',
                { testid: 'sub-' + s.id },
                h('td', {}, h('code', {}, s.id), following && following.id === s.id ? h('span', { class: 'badge live-live' }, 'following') : null),
                h('td', {}, s.subscriber || '?'),
                h('td', { testid: 'cursor' }, s.cursor === undefined || s.cursor === null ? '?' : String(s.cursor)),
                h('td', { testid: 'lag' }, s.lag === undefined || s.lag === null ? '?' : String(s.lag)),
                h(
                  'td',
                  {},
                  following && following.id === s.id ? null : h('button', { type: 'button', testid: 'follow', onclick: () => startFollowing(s.id) }, 'follow'),
                  ' ack to ',
                  cursor,
                  h('button', { type: 'button', testid: 'ack', onclick: () => ack(s.id, Number(cursor.value), ackResult) }, 'ack'),
                  h('button', { type: 'button', testid: 'forget-sub', title: 'forget this subscription\u2019s token in this tab', onclick: () => { tokens.forgetSubscription(s.id); held(); renderSubscriptions(); } }, 'forget'),
                  ackResult,
                ),
              );
            }),
          )
        : h('p', { class: 'muted', testid: 'no-subscriptions' }, 'This tab holds no subscription of ' + id + '. Subscribe to follow its feed.'),
      form,
      result,
    );
  }

  function nextCursor(s) {
    const seqs = [...seen.keys()];
    if (following && following.id === s.id && seqs.length) return Math.max(...seqs) + 1;
    return s.cursor ?? 0;
  }

  async function ack(subId, cursor, out) {
    const s = tokens.subscription(subId);
    const a = await call('POST', '/subscriptions/' + encodeURIComponent(subId) + '/ack', { token: s.token, body: { cursor } });
    if (!a.ok) {
      out.replaceChildren(refusal(a, 'ack'));
      return;
    }
    tokens.keepSubscription(subId, { cursor: a.body.cursor, lag: a.body.lag, head: a.body.head });
    renderSubscriptions();
    const row = subsPanel.querySelector('[data-testid="sub-' + CSS.escape(subId) + '"] .result');
    if (row) row.replaceChildren(ok(' acked: cursor ' + a.body.cursor + ', lag ' + a.body.lag, 'acked'));
    refreshState();
  }

  function startFollowing(subId) {
    if (following) following.stream.stop();
    const s = tokens.subscription(subId);
    feedRows.replaceChildren();
    seen.clear();
    openContradictions.clear();
    leases.clear();
    feedStatus.textContent = 'connecting\u2026';
    following = { id: subId, stream: null };
    following.stream = follow(subId, s.token, {
      onOpen() {
        feedStatus.textContent = 'live (subscription ' + subId + ', from its cursor; the stream never acks)';
        feedStatus.dataset.state = 'live';
      },
      onObservation(seq, event) {
        if (seen.has(seq)) return;
        seen.set(seq, event);
        addRow(seq, event);
        const ack = subsPanel.querySelector('[data-testid="sub-' + CSS.escape(subId) + '"] [data-testid="ack-cursor"]');
        if (ack && document.activeElement !== ack) ack.value = String(seq + 1);
        if (!event.type.startsWith('ai.mentu.monitor.') || event.type.endsWith('.contradiction') || event.type.endsWith('.contradiction_resolved')) {
          scheduleState();
        }
      },
      onHeartbeat(beat) {
        // A heartbeat says the committed cursor when it was sent: an ack answered since may have moved it on.
        const known = tokens.subscription(subId) || {};
        if (known.cursor === undefined || known.cursor === null || beat.cursor > known.cursor) {
          tokens.keepSubscription(subId, { cursor: beat.cursor, head: beat.head });
          renderSubscriptions();
        }
      },
      onRefusal(status, body) {
        feedStatus.textContent = '';
        feedStatus.dataset.state = 'refused';
        feedStatus.append(refusal({ status, body }, 'the stream'));
      },
      onDown(message) {
        feedStatus.textContent = message;
        feedStatus.dataset.state = 'down';
      },
    });
    renderSubscriptions();
  }

  let stateTimer = null;
  function scheduleState() {
    if (stateTimer) return;
    stateTimer = setTimeout(() => {
      stateTimer = null;
      refreshState();
    }, 500);
  }

  function addRow(seq, e) {
    const type = e.type || '';
    const data = e.data && typeof e.data === 'object' ? { ...e.data } : e.data;
    if (data && typeof data === 'object') {
      delete data.provenance;
      delete data.tags;
    }
    if (type.endsWith('.contradiction')) openContradictions.set(e.subject || '', seq);
    if (type.endsWith('.contradiction_resolved')) openContradictions.delete(e.subject || '');
    if (type === 'ai.mentu.monitor.lease' && e.data && e.data.payload && e.data.payload.subject) {
      leases.set(e.data.payload.subject, { payload: e.data.payload, seq });
      renderLeases();
    }
    if (type.endsWith('.contradiction') || type.endsWith('.contradiction_resolved')) renderContradictions(Number(contradictions.querySelector('[data-testid="contradictions-open"]')?.textContent || 0));
    const text = JSON.stringify(data === undefined ? null : data);
    const row = h(
      'tr',
      { class: type.startsWith('ai.mentu.monitor.') ? 'protocol-row' + (type.endsWith('.rejected') ? ' rejected-row' : '') : 'producer-row', testid: 'row-' + seq },
      h('td', {}, String(seq)),
      h('td', { class: 'time' }, e.time || ''),
      h('td', {}, h('code', {}, type)),
      h('td', {}, e.subject || ''),
      h('td', {}, e.actor || ''),
      h('td', {}, (e.origin || '') + ' / ' + (e.tier || '')),
      h('td', { class: 'data', title: text }, text.length > 160 ? text.slice(0, 160) + '\u2026' : text),
    );
    // Newest first; a row arriving out of order (a replay after a reconnect) goes where its seq says.
    let before = null;
    for (const r of feedRows.children) {
      if (Number(r.dataset.testid.slice(4)) < seq) {
        before = r;
        break;
      }
    }
    feedRows.insertBefore(row, before);
    while (feedRows.children.length > 300) feedRows.lastChild.remove();
  }

  function publishForm() {
    const result = h('div', { class: 'result', testid: 'publish-result' });
    const types = monitor.types || [];
    const form = h(
      'form',
      { class: 'panel', testid: 'publish-form' },
      h('h2', {}, 'Publish'),
      h(
        'div',
        { class: 'row' },
        field('type', h('input', { name: 'type', required: true, value: types[0] || '', list: 'types-' + id })),
        h('datalist', { id: 'types-' + id }, types.map((t) => h('option', { value: t }))),
        field('subject', h('input', { name: 'subject' })),
        field('actor', h('input', { name: 'actor', placeholder: 'the owner' })),
      ),
      h(
        'div',
        { class: 'row' },
        field('origin', select('origin', ['', 'human', 'agent', 'webhook', 'probe', 'system'], '')),
        field('tier', select('tier', ['', 'src', 'measured', 'derived', 'unverified', 'falsified'], '')),
      ),
      field('data (JSON object)', h('textarea', { name: 'data', rows: 3, cols: 40, testid: 'publish-data' }, '{}')),
      h('button', { type: 'submit', testid: 'publish-submit' }, 'publish'),
      result,
    );
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      const v = formValues(form);
      let data;
      try {
        data = v.data ? JSON.parse(v.data) : {};
      } catch (err) {
        result.replaceChildren(h('div', { class: 'refusal', testid: 'refusal' }, 'not sent: data is not JSON (' + err.message + ')'));
        return;
      }
      const body = { type: v.type, data };
      for (const k of ['subject', 'actor', 'origin', 'tier']) if (v[k]) body[k] = v[k];
      const a = await call('POST', '/monitors/' + encodeURIComponent(id) + '/observations', { token: tokens.monitor(id).owner, body });
      result.replaceChildren(a.ok ? ok('published at seq ' + a.body.seq, 'published') : refusal(a, 'publish'));
      if (!a.ok && a.body.rejected_seq) result.append(h('p', { class: 'muted' }, 'recorded in the log as a rejected row at seq ' + a.body.rejected_seq));
      refreshState();
    });
    return form;
  }

  function actionsForm() {
    const result = h('div', { class: 'result', testid: 'action-result' });
    const reason = h('input', { name: 'reason', placeholder: 'why (recorded in the log)', size: 28 });
    const act = (action) => async () => {
      const body = reason.value.trim() ? { reason: reason.value.trim() } : {};
      const a = await call('POST', '/monitors/' + encodeURIComponent(id) + '/' + action, { token: tokens.monitor(id).owner, body });
      if (!a.ok) {
        result.replaceChildren(refusal(a, action));
        return;
      }
      monitor = a.body.monitor;
      renderHead();
      result.replaceChildren(ok(action + ' recorded at seq ' + a.body.seq, action + 'd'));
      refreshState();
    };
    return h(
      'div',
      { class: 'panel', testid: 'actions' },
      h('h2', {}, 'Pause, resume, retire'),
      h('p', { class: 'muted' }, 'Owner only. Retirement is final.'),
      reason,
      ' ',
      ['pause', 'resume', 'retire'].map((a) => h('button', { type: 'button', testid: a, onclick: act(a) }, a)),
      result,
    );
  }

  renderHead();
  renderContradictions(0);
  renderLeases();
  renderSubscriptions();
  await refreshState();
  const mine = tokens.subscriptions(id);
  if (mine.length) startFollowing(mine[0].id);
  const timer = setInterval(refreshState, 10000);
  leaving.push(() => clearInterval(timer));
  leaving.push(() => following && following.stream.stop());
}

// ---- routing: the hash names a view, never a token ----------------------------------------------------------------

function route() {
  for (const stop of leaving) stop();
  leaving = [];
  held();
  const hash = location.hash || '#/';
  const m = /^#\/m\/(.+)$/.exec(hash);
  (m ? monitorView(decodeURIComponent(m[1])) : listView()).catch((e) => {
    view.replaceChildren(h('div', { class: 'refusal', role: 'alert' }, 'the console failed: ' + e.message));
  });
}

document.getElementById('forget').addEventListener('click', () => {
  tokens.forgetAll();
  route();
});
window.addEventListener('hashchange', route);
route();
