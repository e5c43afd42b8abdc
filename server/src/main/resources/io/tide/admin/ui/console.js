// Tide's web console. It reads the server's figures from /api/stats once a second and does everything else with
// commands sent to /api/command (a RESP array in, the RESP3 reply out), as any client would.
'use strict';

const tide = window.tide = {
  auth: sessionStorage.getItem('tide-auth'),
  db: 0,
  points: 120,
  series: { time: [], ops: [], p50: [], p99: [], p999: [], used: [], rss: [], shards: [] },
  last: null,
  statsTimer: null,
};

const $ = (id) => document.getElementById(id);
const el = (tag, text, cls) => {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
};

// ---------------------------------------------------------------- RESP

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function encodeCommand(args) {
  const parts = [encoder.encode('*' + args.length + '\r\n')];
  for (const a of args) {
    const b = encoder.encode(String(a));
    parts.push(encoder.encode('$' + b.length + '\r\n'), b, encoder.encode('\r\n'));
  }
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

// Parses one RESP3 value: {t: type, v: value}; types: simple error int bulk null array map set double bool
// verbatim bignum push.
function parseResp(bytes) {
  let pos = 0;
  const line = () => {
    let end = pos;
    while (!(bytes[end] === 13 && bytes[end + 1] === 10)) {
      if (end >= bytes.length) throw new Error('truncated reply');
      end++;
    }
    const s = decoder.decode(bytes.subarray(pos, end));
    pos = end + 2;
    return s;
  };
  const value = () => {
    const type = String.fromCharCode(bytes[pos++]);
    const head = line();
    switch (type) {
      case '+': return { t: 'simple', v: head };
      case '-': return { t: 'error', v: head };
      case ':': return { t: 'int', v: Number(head) };
      case ',': return { t: 'double', v: head };
      case '#': return { t: 'bool', v: head === 't' };
      case '(': return { t: 'bignum', v: head };
      case '_': return { t: 'null' };
      case '$': case '=': {
        const n = Number(head);
        if (n < 0) return { t: 'null' };
        let s = decoder.decode(bytes.subarray(pos, pos + n));
        pos += n + 2;
        if (type === '=') s = s.substring(4);
        return { t: type === '=' ? 'verbatim' : 'bulk', v: s };
      }
      case '*': case '~': case '>': {
        const n = Number(head);
        if (n < 0) return { t: 'null' };
        const items = [];
        for (let i = 0; i < n; i++) items.push(value());
        return { t: type === '*' ? 'array' : type === '~' ? 'set' : 'push', v: items };
      }
      case '%': case '|': {
        const n = Number(head);
        const pairs = [];
        for (let i = 0; i < n; i++) pairs.push([value(), value()]);
        if (type === '|') return value(); // an attribute precedes the reply it describes
        return { t: 'map', v: pairs };
      }
      default: throw new Error('unknown RESP type ' + type);
    }
  };
  return value();
}

// The reply as plain JS: strings, numbers, arrays, objects for maps; an error throws.
function plain(r) {
  switch (r.t) {
    case 'error': { const e = new Error(r.v); e.redis = true; throw e; }
    case 'null': return null;
    case 'array': case 'set': case 'push': return r.v.map(plain);
    case 'map': { const o = {}; for (const [k, v] of r.v) o[plain(k)] = plain(v); return o; }
    case 'int': return r.v;
    case 'bool': return r.v;
    default: return r.v;
  }
}

// redis-cli's way of printing a reply.
function formatReply(r, indent) {
  indent = indent || '';
  switch (r.t) {
    case 'simple': return r.v;
    case 'error': return '(error) ' + r.v;
    case 'int': return '(integer) ' + r.v;
    case 'double': return '(double) ' + r.v;
    case 'bool': return '(' + (r.v ? 'true' : 'false') + ')';
    case 'bignum': return '(big number) ' + r.v;
    case 'null': return '(nil)';
    case 'bulk': return JSON.stringify(r.v);
    case 'verbatim': return r.v;
    case 'array': case 'set': case 'push': case 'map': {
      const items = r.t === 'map' ? r.v : r.v.map((x) => [x]);
      if (items.length === 0) return r.t === 'map' ? '(empty hash)' : '(empty array)';
      const width = String(items.length).length;
      return items.map((item, i) => {
        const n = String(i + 1).padStart(width) + ') ';
        const pad = indent + ' '.repeat(n.length);
        if (item.length === 2) {
          return (i ? indent : '') + n + formatReply(item[0], pad) + '\n' + pad + formatReply(item[1], pad + '  ');
        }
        return (i ? indent : '') + n + formatReply(item[0], pad);
      }).join('\n');
    }
    default: return String(r.v);
  }
}

// ---------------------------------------------------------------- HTTP

class AuthError extends Error {}

function headers(extra) {
  const h = Object.assign({}, extra || {});
  if (tide.auth) h.Authorization = 'Basic ' + tide.auth;
  return h;
}

async function http(path, options) {
  const res = await fetch(path, options);
  if (res.status === 401) { showLogin(); throw new AuthError('authentication required'); }
  if (!res.ok) throw new Error(res.status + ' ' + (await res.text()).trim());
  return res;
}

// Runs one command; resolves to the raw reply ({t, v}).
async function command(args, db) {
  const res = await http('/api/command?db=' + (db === undefined ? tide.db : db), {
    method: 'POST',
    headers: headers({ 'X-Tide-Console': '1', 'Content-Type': 'application/octet-stream' }),
    body: encodeCommand(args),
  });
  return parseResp(new Uint8Array(await res.arrayBuffer()));
}

// Runs one command; resolves to its plain value, rejects with the server's error.
async function call(...args) {
  return plain(await command(args));
}

// ---------------------------------------------------------------- login

function showLogin() {
  $('login').hidden = false;
  $('views').hidden = true;
  stopStats();
}

$('login-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  tide.auth = btoa(unescape(encodeURIComponent($('login-user').value + ':' + $('login-pass').value)));
  try {
    const res = await fetch('/api/stats', { headers: headers() });
    if (res.status === 401) throw new Error('wrong user or password');
    if (!res.ok) throw new Error(res.status + ' ' + (await res.text()).trim());
    sessionStorage.setItem('tide-auth', tide.auth);
    $('login').hidden = true;
    $('views').hidden = false;
    $('login-error').textContent = '';
    start();
  } catch (err) {
    $('login-error').textContent = err.message;
  }
});

// ---------------------------------------------------------------- tabs

let current = 'overview';
for (const b of document.querySelectorAll('#tabs button')) {
  b.addEventListener('click', () => show(b.dataset.view));
}

function show(view) {
  current = view;
  for (const b of document.querySelectorAll('#tabs button')) b.classList.toggle('active', b.dataset.view === view);
  for (const s of document.querySelectorAll('.view')) s.hidden = s.id !== 'view-' + view;
  const load = { slowlog: loadSlowlog, latency: loadLatency, clients: loadClients }[view];
  if (load) load().catch(report);
  if (view === 'command') $('command-input').focus();
}

function report(err) {
  if (err instanceof AuthError) return;
  const target = { keys: 'key-message', overview: 'stats-error' }[current];
  if (target) $(target).textContent = err.message;
  else alert(err.message);
}

// ---------------------------------------------------------------- overview

const charts = {};

function chart(id, series, opts) {
  const box = $(id);
  const width = Math.max(300, box.clientWidth || 520);
  const u = new uPlot(Object.assign({
    width, height: 200,
    series: [{}].concat(series),
    axes: [{}, { size: 60 }],
    scales: { x: { time: true } },
    legend: { live: false },
  }, opts || {}), [[]].concat(series.map(() => [])), box);
  charts[id] = u;
  return u;
}

const palette = ['#0b6fa4', '#d9480f', '#2b8a3e', '#862e9c', '#c92a2a', '#5f3dc4', '#e67700', '#087f5b'];

function setupCharts() {
  chart('chart-ops', [{ label: 'ops/s', stroke: palette[0], width: 2 }]);
  chart('chart-latency', [
    { label: 'p50', stroke: palette[2], width: 2 },
    { label: 'p99', stroke: palette[1], width: 2 },
    { label: 'p99.9', stroke: palette[4], width: 2 },
  ]);
  chart('chart-memory', [
    { label: 'used_memory', stroke: palette[0], width: 2 },
    { label: 'RSS', stroke: palette[3], width: 2 },
  ]);
}

function setupShardChart(n) {
  const series = [];
  for (let i = 0; i < n; i++) series.push({ label: 'shard ' + i, stroke: palette[i % palette.length], width: 1.5 });
  chart('chart-shards', series);
  tide.series.shards = Array.from({ length: n }, () => []);
}

function push(arr, v) {
  arr.push(v);
  if (arr.length > tide.points) arr.shift();
}

function bytes(n) {
  if (n >= 1 << 30) return (n / (1 << 30)).toFixed(2) + ' GB';
  if (n >= 1 << 20) return (n / (1 << 20)).toFixed(1) + ' MB';
  if (n >= 1 << 10) return (n / (1 << 10)).toFixed(1) + ' KB';
  return n + ' B';
}

async function pollStats() {
  let s;
  try {
    s = await (await http('/api/stats', { headers: headers() })).json();
  } catch (err) {
    report(err);
    return;
  }
  $('stats-error').textContent = '';
  const prev = tide.last;
  tide.last = s;
  if (!charts['chart-shards']) setupShardChart(s.shards.length);
  $('keys-value').textContent = s.keys;
  $('clients-value').textContent = s.clients;
  $('mem-value').textContent = bytes(s.usedMemory);
  $('rss-value').textContent = bytes(s.rss);
  if (!prev) return; // rates need two samples
  const dt = (s.time - prev.time) / 1000;
  if (dt <= 0) return;
  const sr = tide.series;
  const ops = Math.max(0, (s.commands - prev.commands) / dt);
  push(sr.time, s.time / 1000);
  push(sr.ops, Math.round(ops));
  push(sr.p50, s.latency.count ? s.latency.p50 : null);
  push(sr.p99, s.latency.count ? s.latency.p99 : null);
  push(sr.p999, s.latency.count ? s.latency.p999 : null);
  push(sr.used, s.usedMemory / 1048576);
  push(sr.rss, s.rss / 1048576);
  const tbody = $('shards-table').tBodies[0];
  tbody.replaceChildren();
  s.shards.forEach((sh, i) => {
    const before = prev.shards[i];
    const rate = before ? Math.max(0, Math.round((sh.executed - before.executed) / dt)) : 0;
    push(sr.shards[i], rate);
    const tr = el('tr');
    for (const v of [sh.id, rate, sh.keys, bytes(sh.usedMemory), sh.pendingTasks]) tr.append(el('td', v));
    tbody.append(tr);
  });
  $('ops-value').textContent = Math.round(ops).toLocaleString('en');
  $('p99-value').textContent = s.latency.count ? s.latency.p99.toFixed(1) : '-';
  if (current !== 'overview') return; // drawn when shown again
  charts['chart-ops'].setData([sr.time, sr.ops]);
  charts['chart-latency'].setData([sr.time, sr.p50, sr.p99, sr.p999]);
  charts['chart-memory'].setData([sr.time, sr.used, sr.rss]);
  charts['chart-shards'].setData([sr.time].concat(sr.shards));
}

function startStats() {
  stopStats();
  pollStats();
  tide.statsTimer = setInterval(pollStats, 1000);
}

function stopStats() {
  if (tide.statsTimer) clearInterval(tide.statsTimer);
  tide.statsTimer = null;
}

// ---------------------------------------------------------------- keys

let scanCursor = '0';
let selectedKey = null;

$('scan-form').addEventListener('submit', (e) => {
  e.preventDefault();
  scanCursor = '0';
  $('key-list').replaceChildren();
  scan().catch(report);
});
$('scan-more').addEventListener('click', () => scan().catch(report));

// Scans until 100 keys are listed or the scan ends.
async function scan() {
  const pattern = $('scan-pattern').value || '*';
  const type = $('scan-type').value;
  let found = 0;
  do {
    const args = ['SCAN', scanCursor, 'MATCH', pattern, 'COUNT', 200];
    if (type) args.push('TYPE', type);
    const [next, keys] = await call(...args);
    scanCursor = next;
    for (const k of keys) {
      const li = el('li', k);
      li.dataset.key = k;
      li.addEventListener('click', () => openKey(k).catch(report));
      $('key-list').append(li);
      found++;
    }
  } while (scanCursor !== '0' && found < 100);
  $('scan-more').disabled = scanCursor === '0';
  $('key-message').textContent = $('key-list').children.length + ' keys listed'
    + (scanCursor === '0' ? ' (scan complete)' : '');
}

$('new-key').addEventListener('click', () => {
  $('create-form').hidden = false;
  $('key-view').hidden = true;
  updateCreateForm();
});
$('create-type').addEventListener('change', updateCreateForm);

function updateCreateForm() {
  const t = $('create-type').value;
  $('create-field-label').hidden = !(t === 'hash' || t === 'zset');
  $('create-field-label').firstChild.textContent = t === 'zset' ? 'Score ' : 'Field ';
}

$('create-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const key = $('create-name').value;
  const t = $('create-type').value;
  const value = $('create-value').value;
  const field = $('create-field').value;
  const ttl = $('create-ttl').value;
  try {
    if (!key) throw new Error('the key needs a name');
    if (Number(await call('EXISTS', key)) > 0) throw new Error('the key ' + key + ' exists already');
    const create = {
      string: ['SET', key, value], hash: ['HSET', key, field, value], list: ['RPUSH', key, value],
      set: ['SADD', key, value], zset: ['ZADD', key, field || '0', value],
    }[t];
    await call(...create);
    if (ttl) await call('EXPIRE', key, ttl);
    $('create-form').hidden = true;
    await openKey(key);
    $('key-message').textContent = 'created ' + key;
  } catch (err) {
    report(err);
  }
});

async function openKey(key) {
  selectedKey = key;
  for (const li of $('key-list').children) li.classList.toggle('selected', li.dataset.key === key);
  const type = await call('TYPE', key);
  $('create-form').hidden = true;
  $('key-view').hidden = false;
  $('key-name').textContent = key;
  $('key-type').textContent = type;
  $('key-message').textContent = '';
  const ttl = await call('TTL', key);
  $('key-ttl').textContent = ttl === -1 ? 'none' : ttl === -2 ? 'gone' : ttl + ' s';
  const editor = $('value-editor');
  editor.replaceChildren();
  if (type === 'none') { editor.append(el('p', 'The key does not exist (deleted or expired).')); return; }
  (editors[type] || editors.other)(key, editor, type);
}

const reload = () => openKey(selectedKey);

$('key-reload').addEventListener('click', () => reload().catch(report));
$('key-delete').addEventListener('click', async () => {
  try {
    const n = await call('DEL', selectedKey);
    $('key-message').textContent = n ? 'deleted ' + selectedKey : selectedKey + ' was already gone';
    const li = [...$('key-list').children].find((x) => x.dataset.key === selectedKey);
    if (li) li.remove();
    $('key-view').hidden = true;
  } catch (err) { report(err); }
});
$('ttl-set').addEventListener('click', async () => {
  try { await call('EXPIRE', selectedKey, $('ttl-input').value); await reload(); } catch (err) { report(err); }
});
$('ttl-persist').addEventListener('click', async () => {
  try { await call('PERSIST', selectedKey); await reload(); } catch (err) { report(err); }
});

function button(text, onClick, cls) {
  const b = el('button', text, cls);
  b.type = 'button';
  b.addEventListener('click', () => Promise.resolve().then(onClick).then(reload).catch(report));
  return b;
}

function input(value, cls) {
  const i = el('input', null, cls);
  i.value = value === undefined ? '' : value;
  return i;
}

// A table of entries; each row's cells are inputs or text, with its buttons last; an "add" row at the end.
function entryTable(editor, heads, rows, addRow) {
  const t = el('table', null, 'grid');
  const hr = el('tr');
  for (const h of heads.concat([''])) hr.append(el('th', h));
  t.append(el('thead'));
  t.tHead.append(hr);
  const body = el('tbody');
  for (const cells of rows.concat(addRow ? [addRow] : [])) {
    const tr = el('tr');
    for (const c of cells) {
      const td = el('td');
      if (Array.isArray(c)) td.append(...c); else if (c instanceof Node) td.append(c); else td.textContent = c;
      tr.append(td);
    }
    body.append(tr);
  }
  t.append(body);
  editor.append(t);
}

const editors = {
  async string(key, editor) {
    const v = await call('GET', key);
    const area = el('textarea');
    area.id = 'string-value';
    area.rows = 8;
    area.value = v;
    editor.append(area, button('Save', () => call('SET', key, area.value, 'KEEPTTL')));
    const save = editor.lastChild;
    save.id = 'string-save';
  },
  async hash(key, editor) {
    const all = await call('HGETALL', key);
    const rows = Object.entries(all).map(([f, v]) => {
      const val = input(v);
      return [f, val, [button('Save', () => call('HSET', key, f, val.value)),
        button('Delete', () => call('HDEL', key, f), 'danger')]];
    });
    const nf = input('');
    const nv = input('');
    entryTable(editor, ['field', 'value'], rows, [nf, nv, button('Add', () => call('HSET', key, nf.value, nv.value))]);
  },
  async list(key, editor) {
    const len = await call('LLEN', key);
    const items = await call('LRANGE', key, 0, 199);
    const rows = items.map((v, i) => {
      const val = input(v);
      return [i, val, [button('Save', () => call('LSET', key, i, val.value)),
        button('Delete', () => removeListItem(key, i), 'danger')]];
    });
    const nv = input('');
    entryTable(editor, ['index', 'value'], rows, ['new', nv, [button('Append', () => call('RPUSH', key, nv.value)),
      button('Prepend', () => call('LPUSH', key, nv.value))]]);
    if (len > items.length) editor.append(el('p', 'showing ' + items.length + ' of ' + len + ' elements', 'message'));
  },
  async set(key, editor) {
    const [, members] = await call('SSCAN', key, 0, 'COUNT', 1000);
    const rows = members.sort().map((m) => [m, button('Delete', () => call('SREM', key, m), 'danger')]);
    const nv = input('');
    entryTable(editor, ['member'], rows, [nv, button('Add', () => call('SADD', key, nv.value))]);
  },
  async zset(key, editor) {
    const flat = await command(['ZRANGE', key, 0, 199, 'WITHSCORES']);
    const pairs = plain(flat);
    const rows = pairs.map(([m, s]) => {
      const score = input(s);
      return [m, score, [button('Save', () => call('ZADD', key, score.value, m)),
        button('Delete', () => call('ZREM', key, m), 'danger')]];
    });
    const nm = input('');
    const ns = input('0');
    entryTable(editor, ['member', 'score'], rows, [nm, ns, button('Add', () => call('ZADD', key, ns.value, nm.value))]);
  },
  async stream(key, editor) {
    const entries = await call('XREVRANGE', key, '+', '-', 'COUNT', 100);
    const rows = entries.map(([id, fields]) => {
      const pairs = [];
      for (let i = 0; i < fields.length; i += 2) pairs.push(fields[i] + '=' + fields[i + 1]);
      return [id, pairs.join(' '), button('Delete', () => call('XDEL', key, id), 'danger')];
    });
    const nf = input('');
    nf.placeholder = 'field value field value ...';
    entryTable(editor, ['id', 'fields'], rows, ['new (*)', nf,
      button('Add', () => call('XADD', key, '*', ...splitArgs(nf.value)))]);
  },
  async other(key, editor, type) {
    const dump = await command(['DEBUG', 'OBJECT', key]).catch(() => null);
    editor.append(el('p', 'This console does not edit values of type ' + type + '; use the command box.'));
    if (dump && dump.t !== 'error') editor.append(el('pre', formatReply(dump)));
  },
};

// Deletes the list element at index i: marks it with a value no client would write, then removes that value.
async function removeListItem(key, i) {
  const mark = '__tide_console_deleted_' + crypto.getRandomValues(new Uint32Array(2)).join('_');
  await call('LSET', key, i, mark);
  await call('LREM', key, 1, mark);
}

// ---------------------------------------------------------------- slowlog, latency, clients

async function loadSlowlog() {
  const entries = await call('SLOWLOG', 'GET', 128);
  $('slowlog-len').textContent = (await call('SLOWLOG', 'LEN')) + ' entries';
  const tbody = $('slowlog-table').tBodies[0];
  tbody.replaceChildren();
  for (const [id, time, micros, args, client, name] of entries) {
    const tr = el('tr');
    for (const v of [id, new Date(time * 1000).toLocaleString(), micros, args.join(' '), client, name]) tr.append(el('td', v));
    tbody.append(tr);
  }
}
$('slowlog-reload').addEventListener('click', () => loadSlowlog().catch(report));
$('slowlog-reset').addEventListener('click', () => call('SLOWLOG', 'RESET').then(loadSlowlog).catch(report));

async function loadLatency() {
  const cfg = await call('CONFIG', 'GET', 'latency-monitor-threshold');
  $('latency-threshold').textContent = Array.isArray(cfg) ? cfg[1] : cfg['latency-monitor-threshold'];
  const events = await call('LATENCY', 'LATEST');
  const tbody = $('latency-table').tBodies[0];
  tbody.replaceChildren();
  for (const [name, at, latest, max] of events) {
    const tr = el('tr');
    for (const v of [name, new Date(at * 1000).toLocaleString(), latest, max]) tr.append(el('td', v));
    tbody.append(tr);
  }
  const info = await call('INFO', 'latencystats');
  const stats = $('latencystats-table').tBodies[0];
  stats.replaceChildren();
  for (const line of info.split('\r\n')) {
    const m = /^latency_percentiles_usec_(.+?):(.*)$/.exec(line);
    if (!m) continue;
    const tr = el('tr');
    tr.append(el('td', m[1]), el('td', m[2]));
    stats.append(tr);
  }
}
$('latency-reload').addEventListener('click', () => loadLatency().catch(report));
$('latency-reset').addEventListener('click', () => call('LATENCY', 'RESET').then(loadLatency).catch(report));

async function loadClients() {
  const text = await call('CLIENT', 'LIST');
  const tbody = $('clients-table').tBodies[0];
  tbody.replaceChildren();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const f = {};
    for (const kv of line.trim().split(' ')) {
      const eq = kv.indexOf('=');
      f[kv.substring(0, eq)] = kv.substring(eq + 1);
    }
    const tr = el('tr');
    tr.dataset.id = f.id;
    for (const v of [f.id, f.addr, f.name, f.age, f.idle, f.db, f.cmd]) tr.append(el('td', v));
    const td = el('td');
    if (f.name !== 'tide-console') {
      const kill = el('button', 'Kill', 'danger');
      kill.addEventListener('click', () => call('CLIENT', 'KILL', 'ID', f.id).then(loadClients).catch(report));
      td.append(kill);
    }
    tr.append(td);
    tbody.append(tr);
  }
}
$('clients-reload').addEventListener('click', () => loadClients().catch(report));

// ---------------------------------------------------------------- command box

const cmdHistory = JSON.parse(localStorage.getItem('tide-history') || '[]');
let historyAt = cmdHistory.length;

// Splits a command line as redis-cli does: spaces separate, "double" (with \n \t \" \\ \xHH) and 'single' quotes group.
function splitArgs(line) {
  const out = [];
  let i = 0;
  while (i < line.length) {
    while (i < line.length && /\s/.test(line[i])) i++;
    if (i >= line.length) break;
    let arg = '';
    if (line[i] === '"') {
      i++;
      while (i < line.length && line[i] !== '"') {
        if (line[i] === '\\' && i + 1 < line.length) {
          const c = line[++i];
          if (c === 'x' && /^[0-9a-fA-F]{2}$/.test(line.substring(i + 1, i + 3))) {
            arg += String.fromCharCode(parseInt(line.substring(i + 1, i + 3), 16));
            i += 2;
          } else {
            arg += { n: '\n', r: '\r', t: '\t', b: '\b', a: '\x07' }[c] || c;
          }
        } else {
          arg += line[i];
        }
        i++;
      }
      if (i >= line.length) throw new Error('Invalid argument(s): unbalanced quotes');
      i++;
    } else if (line[i] === "'") {
      i++;
      while (i < line.length && line[i] !== "'") {
        if (line[i] === '\\' && line[i + 1] === "'") i++;
        arg += line[i++];
      }
      if (i >= line.length) throw new Error('Invalid argument(s): unbalanced quotes');
      i++;
    } else {
      while (i < line.length && !/\s/.test(line[i])) arg += line[i++];
    }
    out.push(arg);
  }
  return out;
}

$('command-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const line = $('command-input').value;
  if (!line.trim()) return;
  cmdHistory.push(line);
  while (cmdHistory.length > 200) cmdHistory.shift();
  localStorage.setItem('tide-history', JSON.stringify(cmdHistory));
  historyAt = cmdHistory.length;
  $('command-input').value = '';
  const out = $('command-output');
  const entry = el('div');
  entry.append(el('span', 'db' + tide.db + '> ' + line, 'prompt'), document.createTextNode('\n'));
  out.append(entry);
  try {
    const reply = await command(splitArgs(line));
    entry.append(document.createTextNode(formatReply(reply) + '\n'));
  } catch (err) {
    if (!(err instanceof AuthError)) entry.append(document.createTextNode('(console) ' + err.message + '\n'));
  }
  out.scrollTop = out.scrollHeight;
});

$('command-input').addEventListener('keydown', (e) => {
  if (e.key === 'ArrowUp' && historyAt > 0) {
    $('command-input').value = cmdHistory[--historyAt];
    e.preventDefault();
  } else if (e.key === 'ArrowDown') {
    historyAt = Math.min(cmdHistory.length, historyAt + 1);
    $('command-input').value = cmdHistory[historyAt] || '';
    e.preventDefault();
  }
});

// ---------------------------------------------------------------- start

$('db').addEventListener('change', () => { tide.db = Number($('db').value); });

async function start() {
  const info = await call('INFO', 'server');
  const field = (name) => (new RegExp('^' + name + ':(.*)$', 'm').exec(info) || [])[1] || '';
  $('server-line').textContent = 'Tide ' + field('redis_version') + ' · port ' + field('tcp_port')
    + ' · up ' + field('uptime_in_seconds') + ' s';
  const dbs = await call('CONFIG', 'GET', 'databases');
  const n = Number(Array.isArray(dbs) ? dbs[1] : dbs.databases);
  const select = $('db');
  select.replaceChildren();
  for (let i = 0; i < n; i++) {
    const o = el('option', i);
    o.value = i;
    select.append(o);
  }
  select.value = tide.db;
  if (!charts['chart-ops']) setupCharts();
  startStats();
}

fetch('/api/stats', { headers: headers() }).then((res) => {
  if (res.status === 401) { showLogin(); return; }
  $('views').hidden = false;
  start().catch(report);
}).catch(report);
